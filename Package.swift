// swift-tools-version:6.0
//
// smsfilter: label huge SMS archives into the folder model of Apple's SMS message filters.
//
// Modules, each depending only on modules listed before it:
//   CZstd          system library over libzstd (pkg-config `libzstd`; apt `libzstd-dev`, brew `zstd`)
//   CZlib          system library over zlib (pkg-config `zlib`; apt `zlib1g-dev`, brew `zlib`)
//   ArchiveIO      archive input and output: zstd both ways, gzip, recognising other inputs, atomic output files;
//                  general purpose
//   CSIMDDispatch  the runtime CPU dispatch of the C SIMD kernels (a header: CPUID, NEON, scalar)
//   CAhoCorasickSIMD  the SIMD kernels of AhoCorasick's prefilter (C, runtime CPU dispatch)
//   AhoCorasick    keyword automaton, general purpose
//   CJSONSIMD      the SIMD kernel of BatchPipeline's JSON Lines scanner (C, runtime CPU dispatch)
//   MessageFilter  the IdentityLookup taxonomy, rules, senders, compiled rule sets, verdicts
//   BatchPipeline  record formats, chunked reading, Dispatch fan-out, ordered writing, counts
//   SMSFilterCLI   the `smsfilter` executable
//   TestSupport    oracles and fixture builders shared by the tests
//
// Warnings: CI builds every target, tests included, with `-warnings-as-errors` (.ci/run sets the Makefile's
// SWIFT_BUILD_FLAGS); `strict` stays empty so that a warning does not stop a build by hand.
//
// Compile-time flags:
//   AHOCORASICK_INTERNAL_CHECKS   run `_checkInvariants()` on every built trie and DFA (slow; for debugging):
//                                 `swift build -Xswiftc -DAHOCORASICK_INTERNAL_CHECKS`
//   BATCHPIPELINE_INTERNAL_CHECKS `_checkInvariants()` on the byte buffers, chunks, the chunk pool and queues
//                                 and each parsed chunk, and a trap when a buffer would move while its bytes
//                                 are lent out (for debugging): `make test-buffer-checks`
//   MESSAGEFILTER_INTERNAL_CHECKS `_checkInvariants()` on every built or loaded rule set's tables, on its
//                                 learned model's tables (when compiled, and with the classifier's model
//                                 scratch at every batch, and its text phrase lists when built) and on each
//                                 normalised text's buffers and source spans: `make test-filter-checks`
import PackageDescription

let strict: [SwiftSetting] = []

let package = Package(
    name: "smsfilter",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .executable(name: "smsfilter", targets: ["SMSFilterCLI"]),
        .library(name: "ArchiveIO", targets: ["ArchiveIO"]),
        .library(name: "AhoCorasick", targets: ["AhoCorasick"]),
        .library(name: "MessageFilter", targets: ["MessageFilter"]),
        .library(name: "BatchPipeline", targets: ["BatchPipeline"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CZstd",
            pkgConfig: "libzstd",
            providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]
        ),
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "ArchiveIO", dependencies: ["CZstd", "CZlib"], swiftSettings: strict),
        .target(name: "CSIMDDispatch"),
        .target(name: "CAhoCorasickSIMD", dependencies: ["CSIMDDispatch"]),
        .target(name: "AhoCorasick", dependencies: ["CAhoCorasickSIMD"], swiftSettings: strict),
        .target(
            name: "MessageFilter",
            dependencies: ["AhoCorasick", .product(name: "Yams", package: "Yams")],
            exclude: ["Text/NOTICE.md"],
            swiftSettings: strict
        ),
        .target(name: "CJSONSIMD", dependencies: ["CSIMDDispatch"]),
        .target(name: "BatchPipeline", dependencies: ["ArchiveIO", "MessageFilter", "CJSONSIMD"], swiftSettings: strict),
        .executableTarget(
            name: "SMSFilterCLI",
            dependencies: [
                "BatchPipeline", "MessageFilter", "AhoCorasick", "ArchiveIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .target(name: "TestSupport", dependencies: ["AhoCorasick", "ArchiveIO"], swiftSettings: strict),
        .testTarget(name: "ArchiveIOTests", dependencies: ["ArchiveIO", "TestSupport"]),
        .testTarget(name: "AhoCorasickTests", dependencies: ["AhoCorasick", "TestSupport"]),
        .testTarget(name: "MessageFilterTests", dependencies: ["MessageFilter", "TestSupport"]),
        .testTarget(name: "BatchPipelineTests", dependencies: ["BatchPipeline", "TestSupport"]),
        .testTarget(name: "SMSFilterCLITests", dependencies: ["TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
