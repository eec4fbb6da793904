import Foundation
import TestSupport
import XCTest

@testable import BatchPipeline

/// The fingerprint of a short reject (`--max-rejects-bytes`) is SHA-256 as `sha256sum` prints it: checked
/// against FIPS 180-4's examples and Python's `hashlib` at every length around the block boundaries, fed in
/// pieces of every size.
final class SHA256Tests: XCTestCase {
    func digest(_ bytes: [UInt8], pieces: Int = .max) -> String {
        var h = _SHA256()
        var i = 0
        repeat {
            let end = min(bytes.count, i + max(1, pieces))
            bytes[i..<end].withUnsafeBytes { h.update($0) }
            i = end
        } while i < bytes.count
        return h.finish()
    }

    func testKnownDigests() {
        XCTAssertEqual(digest([]), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(digest(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), pieces: 7),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(digest([UInt8](repeating: 0x61, count: 1_000_000), pieces: 4093),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testEveryLengthAroundTheBlockAgainstHashlib() throws {
        let lengths = Array(0...130) + [191, 192, 193, 1000, 4096]
        let r = try Fixtures.run("python3", ["-c", """
            import hashlib
            for n in \(lengths):
                print(hashlib.sha256(bytes((i * 7 + 3) % 256 for i in range(n))).hexdigest())
            """])
        XCTAssertEqual(r.status, 0)
        let expected = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(expected.count, lengths.count)
        for (n, want) in zip(lengths, expected) {
            let bytes = (0..<n).map { UInt8(($0 * 7 + 3) % 256) }
            for pieces in [1, 3, 64, .max] { XCTAssertEqual(digest(bytes, pieces: pieces), want, "\(n) bytes in pieces of \(pieces)") }
        }
    }
}
