/// The stable hashes of `smsfilter export`, written again from their documented definitions (FNV-1a 64 of
/// the UTF-8 bytes, finished with the SplitMix64 finaliser; the split from the top 53 bits scaled to the
/// weights' total), so that tests can say where every record must land without calling the code under test.
public enum OracleHash {
    /// FNV-1a 64 of `bytes`, then SplitMix64's finaliser.
    public static func id(_ text: String) -> UInt64 {
        var h: UInt64 = 14_695_981_039_346_656_037  // FNV offset basis
        for b in text.utf8 {
            h ^= UInt64(b)
            h = h &* 1_099_511_628_211  // FNV prime
        }
        return splitMix64(h)
    }

    /// SplitMix64's finaliser (Steele, Lea, Flood 2014).
    public static func splitMix64(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// "train", "validation" or "test" for weights `train,validation,test`.
    public static func split(_ hash: UInt64, _ weights: (Int, Int, Int)) -> String {
        let total = weights.0 + weights.1 + weights.2
        let bucket = Int(Double(hash >> 11) / 9_007_199_254_740_992.0 * Double(total))  // 2^53
        if bucket < weights.0 { return "train" }
        if bucket < weights.0 + weights.1 { return "validation" }
        return "test"
    }
}
