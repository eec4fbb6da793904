import Foundation

/// The JSON of the commands' reports and summaries, as `JSONSerialization` writes it.
enum JSONText {
    /// JSON text of `object` (sorted keys, no escaped slashes), with a final newline.
    static func pretty(_ object: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object,
                                                options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
