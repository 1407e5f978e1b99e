/// schema.yaml in, a validated ``Schema`` out, or every problem in the file at once.
///
/// The language, in short:
///
/// ```yaml
/// tables:                          # table name -> table, in order
///   sessions:
///     swift_name: Session          # optional row type name
///     conflict: lww                # lww | version | { mode: version, version: timestamp|integer }
///     exact_ordering: true         # optional, default true
///     columns:                     # column name -> type, in order
///       started_ms: int            # shorthand: `type` is NOT NULL, `type?` nullable
///       ended_ms: int?
///       source: { type: enum, values: [desktop, phone], default: desktop }
///       activity_id: { type: uuid, references: activities }
///     indexes:
///       - { columns: [activity_id], unique: false, name: sessions_activity_id_idx }
///     rules:
///       - one_open_per_owner: { start: started_ms, end: ended_ms }
/// ```
///
/// Names are plain SQL identifiers (`^[a-z][a-z0-9_]*$`, at most 63 bytes, no keyword), so no
/// renderer ever quotes one; text defaults stay raw and are escaped by the renderers.
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
