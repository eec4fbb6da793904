import ArchiveIO

/// A deterministic, realistic synthetic SMS corpus with a ground-truth label per record.
///
/// Each line is `{"id": "gen:N", "sender": …, "body": …, "ts": …, "label": FOLDER, "lang": …}` where
/// `label` is the folder the message truly belongs in (`Transactions/Finance`, `Junk`, `Inbox`, …).
/// Messages cover all twelve sub-actions, junk and scams, promotions, OTPs and personal chat; senders of
/// every kind (E.164 mobile numbers of their country's length, short codes, TRAI headers such as
/// `VM-HDFCBK-S`, alphanumerics, e-mail); English, Hinglish, Hindi, Chinese and Thai with emoji. Business
/// messages may end with sign-offs ("T&C apply."), personal chats never do. Bodies average about 117 bytes
/// (117.3 for 30,000 records of seed 7) with a long tail to several KB. The same seed and count give the
/// same bytes.
///
/// It streams: memory stays constant whatever the count.
public struct CorpusGenerator {
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
    }

    /// Writes `count` records to `output`; returns the bytes written (before compression).
    /// - Throws: ``PipelineError`` (an output failure) when `output` cannot be written.
    @discardableResult
    public func write(count: Int, to output: OutputFile, progress: ((Int) -> Void)? = nil) throws(PipelineError) -> Int64 {
        func put(_ bytes: UnsafeRawBufferPointer) throws(PipelineError) {
            do { try output.write(bytes) } catch { throw PipelineError(.outputFailed, error.description) }
        }
        var rng = _SplitMix(seed: seed)
        let line = _ByteBuffer(capacity: 1 << 16)
        let batch = _ByteBuffer(capacity: 1 << 20)
        var total: Int64 = 0
        let model = _CorpusModel.shared
        for n in 1...max(1, count) where count > 0 {
            line.removeAll()
            model.record(number: n, rng: &rng, into: line)
            batch.append(line)
            if batch.count >= 1 << 20 {
                try batch.withUnsafeBytes(put)
                total += Int64(batch.count)
                batch.removeAll()
                progress?(n)
            }
        }
        if batch.count > 0 {
            try batch.withUnsafeBytes(put)
            total += Int64(batch.count)
        }
        return total
    }
}
