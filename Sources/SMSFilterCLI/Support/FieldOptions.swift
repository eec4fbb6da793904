import ArgumentParser
import BatchPipeline

/// Which fields hold the id, sender and body: shared by classify, export, evaluate and learn.
///
/// A field option the user gives must name a field that the file's first records have (checked by the
/// reader, SPEC §7); at its default it need not (files without ids or senders are normal).
struct FieldOptions: ParsableArguments {
    @Option(name: .long, help: "Field, column or attribute holding the record id.")
    var idField = FieldName("id")

    @Option(name: .long, help: "Field, column or attribute holding the sender (XML default: address).")
    var senderField = FieldName("sender")

    @Option(name: .long, help: "Field, column or attribute holding the message text.")
    var bodyField = FieldName("body")

    var names: FieldNames {
        var names = FieldNames(id: idField.name, sender: senderField.name, body: bodyField.name)
        if idField.given { names.required.append(.init(option: "--id-field", name: idField.name)) }
        if senderField.given { names.required.append(.init(option: "--sender-field", name: senderField.name)) }
        return names
    }
}

/// The value of a field option, and whether the user gave it (a default is not required to exist).
struct FieldName: ExpressibleByArgument {
    let name: String
    let given: Bool
    init(argument: String) {
        name = argument
        given = true
    }
    init(_ name: String) {
        self.name = name
        given = false
    }
    var defaultValueDescription: String { name }
}
