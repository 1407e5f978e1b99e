import CHopeSyncYaml

/// Turns YAML text into a ``YAMLNode`` tree with libyaml's event parser.
///
/// Anchors, aliases, tags and further documents are refused: they would let a schema say one
/// thing in two places, and no schema needs them. A syntax error ends the read; the other
/// problems are collected so the user sees them all at once.
struct YAMLReader {
    /// Deeper than any schema needs (a JSON default included), and shallow enough that a
    /// tree of it is built and freed without exhausting the stack: a file of 60,000 `[` used to
    /// crash freeing its tree.
    static let maxDepth = 64

    /// The first document's root, nil when the stream is empty or the YAML is unreadable.
    var root: YAMLNode?
    var log: DiagnosticLog
    /// False after a syntax error or an alias: the tree is then not what the file says.
    var isFaithful = true

    init(_ source: String, file: String) {
        log = DiagnosticLog(file: file)
        let bytes = Array(source.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) != 0 else {
                log.error(YAMLMark(line: 1, column: 1), "libyaml could not start", hint: "the machine may be out of memory")
                isFaithful = false
                return
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            read(&parser, source: buffer)
        }
    }

    private mutating func read(_ parser: inout yaml_parser_t, source: UnsafeBufferPointer<UInt8>) {
        var builder = TreeBuilder(log: DiagnosticLog(file: log.file))
        var documents = 0
        while true {
            var event = yaml_event_t()
            guard yaml_parser_parse(&parser, &event) != 0 else {
                let (mark, message, hint) = Self.syntaxProblem(parser, source: source)
                log.error(mark, message, hint: hint)
                isFaithful = false
                return
            }
            defer { yaml_event_delete(&event) }
            let mark = YAMLMark(line: event.start_mark.line + 1, column: event.start_mark.column + 1)
            switch event.type {
            case YAML_STREAM_END_EVENT:
                root = builder.root
                log.append(contentsOf: builder.log)
                return
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    log.error(
                        mark, "a second YAML document",
                        hint: "schema.yaml holds one document; remove this '---' and what follows it, or merge it into the first")
                    root = builder.root
                    log.append(contentsOf: builder.log)
                    return
                }
            case YAML_ALIAS_EVENT:
                log.error(mark, "YAML aliases are not supported", hint: "write the value out in full where it is used")
                isFaithful = false
                builder.add(YAMLNode(content: .scalar(YAMLScalar(text: "", isQuoted: false)), mark: mark))
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                check(anchor: scalar.anchor, tag: scalar.tag, at: mark)
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let isQuoted = scalar.style != YAML_PLAIN_SCALAR_STYLE
                builder.add(YAMLNode(content: .scalar(YAMLScalar(text: text, isQuoted: isQuoted)), mark: mark))
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                guard builder.depth < Self.maxDepth else {
                    log.error(
                        mark, "the YAML nests deeper than \(Self.maxDepth) levels",
                        hint: "a schema needs a few levels; write a deep JSON default in the app instead")
                    isFaithful = false
                    return
                }
                if event.type == YAML_SEQUENCE_START_EVENT {
                    check(anchor: event.data.sequence_start.anchor, tag: event.data.sequence_start.tag, at: mark)
                    builder.openSequence(at: mark)
                } else {
                    check(anchor: event.data.mapping_start.anchor, tag: event.data.mapping_start.tag, at: mark)
                    builder.openMapping(at: mark)
                }
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                builder.close()
            default:
                break
            }
        }
    }

    private mutating func check(anchor: UnsafeMutablePointer<yaml_char_t>?, tag: UnsafeMutablePointer<yaml_char_t>?, at mark: YAMLMark) {
        if let anchor {
            log.error(
                mark, "YAML anchors are not supported ('&\(String(cString: anchor))')",
                hint: "remove the anchor and write each value out in full")
        }
        if let tag {
            log.error(
                mark, "YAML tags are not supported ('\(String(cString: tag))')", hint: "remove the tag; quote a value to make it a string")
        }
    }

    /// libyaml's own words for the problem, at the place it names. A reader error (bad
    /// encoding, a control character) gives only a byte offset, so the line is counted here.
    private static func syntaxProblem(_ parser: yaml_parser_t, source: UnsafeBufferPointer<UInt8>) -> (YAMLMark, String, String) {
        let problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
        var mark = YAMLMark(line: parser.problem_mark.line + 1, column: parser.problem_mark.column + 1)
        if parser.error == YAML_READER_ERROR {
            mark = Self.mark(ofByte: min(parser.problem_offset, source.count), in: source)
        }
        var message = "invalid YAML: \(problem)"
        // What was being read matters when it began on an earlier line, such as an unclosed '['.
        if let context = parser.context.map({ String(cString: $0) }), parser.context_mark.line < parser.problem_mark.line {
            message += " (\(context) at line \(parser.context_mark.line + 1))"
        }
        let offset = parser.error == YAML_READER_ERROR ? parser.problem_offset : parser.problem_mark.index
        if offset < source.count, source[offset] == UInt8(ascii: "\t") {
            return (mark, message, "YAML indents with spaces only: replace the tab with spaces")
        }
        return (mark, message, "check the indentation, the ':' after each key, and quote values that contain ': ', '#', '{' or '['")
    }

    private static func mark(ofByte offset: Int, in source: UnsafeBufferPointer<UInt8>) -> YAMLMark {
        let before = source[..<offset]
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let column = String(decoding: source[lineStart..<offset], as: UTF8.self).count + 1
        return YAMLMark(line: line, column: column)
    }
}
