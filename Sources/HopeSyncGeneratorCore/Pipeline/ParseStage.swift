import HopeSyncSchema

/// schema.yaml as read from disk: its bytes, and the name diagnostics give it.
package struct SchemaFile: Sendable {
    package var bytes: [UInt8]
    package var name: String

    package init(bytes: [UInt8], name: String) {
        self.bytes = bytes
        self.name = name
    }
}

/// Parse: the file's bytes to the model, or every problem in it at once (not UTF-8, YAML,
/// the schema language).
package struct ParseStage: PipelineStage {
    package init() {}

    package func run(_ file: SchemaFile) throws(SchemaError) -> ParsedSchema {
        try SchemaParser.parse(SourceText.decode(file.bytes, file: file.name), file: file.name)
    }
}
