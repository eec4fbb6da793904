/// Calls `body` with the UTF-8 bytes of the scalar value `scalar` (1 to 4 bytes; `scalar` is a valid
/// Unicode scalar value, checked by the caller).
@inline(__always)
func _encodeUTF8(_ scalar: UInt32, _ body: (UInt8) -> Void) {
    switch scalar {
    case 0..<0x80:
        body(UInt8(scalar))
    case 0x80..<0x800:
        body(UInt8(0xC0 | (scalar >> 6)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    case 0x800..<0x10000:
        body(UInt8(0xE0 | (scalar >> 12)))
        body(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    default:
        body(UInt8(0xF0 | (scalar >> 18)))
        body(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
        body(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
        body(UInt8(0x80 | (scalar & 0x3F)))
    }
}
