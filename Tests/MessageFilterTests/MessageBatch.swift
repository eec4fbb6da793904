import XCTest
@testable import MessageFilter

/// Messages laid out in one buffer as the batch API takes them: each message's sender (when it has one),
/// then its body.
struct MessageBatch {
    var buffer: [UInt8] = []
    var spans: [MessageSpan] = []

    /// `messages` as (sender, body), in order.
    init(_ messages: [(String?, String)]) {
        for (sender, body) in messages { append(sender: sender, body: body) }
    }

    /// Bodies without senders, in order.
    init(bodies: [String]) {
        self.init(bodies.map { (nil, $0) })
    }

    mutating func append(sender: String?, body: String) {
        var span = MessageSpan(senderStart: 0, senderCount: -1, bodyStart: 0, bodyCount: 0)
        if let sender {
            span.senderStart = buffer.count
            buffer += Array(sender.utf8)
            span.senderCount = sender.utf8.count
        }
        span.bodyStart = buffer.count
        buffer += Array(body.utf8)
        span.bodyCount = body.utf8.count
        spans.append(span)
    }

    /// The verdicts of `classifier`'s batch API, one per message.
    func verdicts(_ classifier: Classifier) -> [Verdict] {
        var verdicts = [Verdict](repeating: Verdict(), count: spans.count)
        buffer.withUnsafeBytes { b in
            spans.withUnsafeBufferPointer { s in verdicts.withUnsafeMutableBufferPointer { classifier.classify(buffer: b, messages: s, into: $0) } }
        }
        return verdicts
    }
}

/// `classifier`'s explanation of one message, checked against its one-message verdict and its batch verdict
/// (one decision path).
func checkedExplanation(
    _ classifier: Classifier, sender: String? = nil, body: String, file: StaticString = #filePath, line: UInt = #line
) -> Explanation {
    let e = classifier.explain(sender: sender, body: body)
    XCTAssertEqual(e.verdict, classifier.classify(sender: sender, body: body), "explain and classify disagree", file: file, line: line)
    XCTAssertEqual(MessageBatch([(sender, body)]).verdicts(classifier)[0], e.verdict, "the batch call disagrees", file: file, line: line)
    return e
}
