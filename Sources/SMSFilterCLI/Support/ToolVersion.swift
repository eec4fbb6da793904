/// The version of smsfilter, written by `--version` and into the headers of generated extension files.
enum ToolVersion {
    static let number = "0.1.0"
}
