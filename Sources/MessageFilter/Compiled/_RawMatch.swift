/// One phrase match: global phrase id, byte span in the body, and the message it belongs to (batch).
struct _RawMatch: Sendable {
    var phrase: Int32
    var start: Int32
    var end: Int32
    var span: Int32
}
