import ArgumentParser

/// `--filter-key`: the JSON key, CSV/TSV column prefix and XML attribute prefix of the added labels. It is
/// written into every output format unquoted (an XML attribute name, a CSV header cell), so it must be a
/// plain name: `x="1" evil` would add an XML attribute, `a,b` a CSV column.
enum FilterKey {
    static let maxLength = 64

    static func isValid(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, key.unicodeScalars.count <= maxLength,
            first == "_" || (first.isASCII && first.properties.isAlphabetic)
        else { return false }
        return key.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" || $0 == ".")
        }
    }

    static func validate(_ key: String) throws {
        guard !isValid(key) else { return }
        throw ValidationError(
            "Please give --filter-key as a plain name: a letter or _, then letters, digits, _, - or . "
                + "(at most \(maxLength); it becomes a JSON key, CSV/TSV column names and XML attribute names).")
    }
}
