/// schema.yaml in, a validated ``Schema`` out, or every problem in the file at once.
public enum SchemaParser {
    /// - Parameter file: the name diagnostics and locations use.
    /// - Throws: ``SchemaError`` with the diagnostics in source order.
    public static func parse(_ source: String, file: String = "schema.yaml") throws(SchemaError) -> ParsedSchema {
        let yaml = YAMLReader(source, file: file)
        // A tree with a syntax error or an alias in it is not the file the user wrote: checking
        // it would report problems that are not there.
        guard yaml.isFaithful else { throw SchemaError(yaml.log.sorted) }
        var reader = SchemaReader(log: yaml.log)
        let schema = reader.readSchema(yaml.root)
        guard reader.log.isEmpty else { throw SchemaError(reader.log.sorted) }
        return ParsedSchema(schema: schema, locations: reader.locations)
    }
}
