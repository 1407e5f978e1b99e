/// The data a template renders: built by a renderer from the model.
package enum TemplateValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    case text(String)
    case bool(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])
    /// Where a list's element stands: answers `@first`, `@last` and `@index`.
    case position(index: Int, count: Int)

    package init(stringLiteral value: String) { self = .text(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: TemplateValue...) { self = .list(elements) }
    package init(dictionaryLiteral elements: (String, TemplateValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    var isTruthy: Bool {
        switch self {
        case .text(let text): !text.isEmpty
        case .bool(let flag): flag
        case .list(let items): !items.isEmpty
        case .object, .position: true
        }
    }

    var text: String? {
        switch self {
        case .text(let text): text
        case .bool(let flag): flag ? "true" : "false"
        case .list, .object, .position: nil
        }
    }

    func field(_ name: String) -> TemplateValue? {
        switch self {
        case .object(let fields):
            return fields[name]
        case .position(let index, let count):
            switch name {
            case "@first": return .bool(index == 0)
            case "@last": return .bool(index == count - 1)
            case "@index": return .text(String(index))
            default: return nil
            }
        default:
            return nil
        }
    }
}

public struct TemplateError: Error, Equatable, CustomStringConvertible {
    public let template: String
    public let line: Int
    public let message: String

    public var description: String { "\(template):\(line): error: \(message)" }
}
