/// A value a template renders, with the variables and sections it offers declared once, as
/// fields: each field's name, its meaning (for Templates/README.md) and how it reads the value.
/// The one conversion to ``TemplateValue`` is ``templateValue``.
protocol TemplateObject {
    static var fields: [TemplateField<Self>] { get }
}

/// What one template file receives.
protocol TemplateContext: TemplateObject {
    /// The template's path relative to the template folder (`supabase/access.sql.mustache`).
    static var template: String { get }
    /// One line for Templates/README.md: what the template makes.
    static var summary: String { get }
    /// For a partial (`{{> …}}`), the template that includes it, whose variables it sees.
    static var partialOf: String? { get }
}

extension TemplateContext {
    static var partialOf: String? { nil }
}

extension TemplateObject {
    var templateValue: TemplateValue {
        var object: [String: TemplateValue] = [:]
        for field in Self.fields {
            if let value = field.value(self) { object[field.name] = value }
        }
        return .object(object)
    }

    /// Another object's fields as this one's own (a template that receives everything a
    /// table's triggers receive, and more).
    static func fields<Part: TemplateObject>(of path: KeyPath<Self, Part>) -> [TemplateField<Self>] {
        Part.fields.map { field in
            TemplateField<Self>(name: field.name, meaning: field.meaning, kind: field.kind) { field.value($0[keyPath: path]) }
        }
    }
}

/// One variable or section of a template.
struct TemplateField<Object> {
    let name: String
    let meaning: String
    let kind: TemplateFieldKind
    let value: (Object) -> TemplateValue?

    init(name: String, meaning: String, kind: TemplateFieldKind, value: @escaping (Object) -> TemplateValue?) {
        self.name = name
        self.meaning = meaning
        self.kind = kind
        self.value = value
    }

    init(_ name: String, _ meaning: String, _ path: KeyPath<Object, String>) {
        self.init(name: name, meaning: meaning, kind: .text) { .text($0[keyPath: path]) }
    }

    init(_ name: String, _ meaning: String, _ path: KeyPath<Object, String?>) {
        self.init(name: name, meaning: meaning, kind: .optionalText) { $0[keyPath: path].map(TemplateValue.text) }
    }

    init(_ name: String, _ meaning: String, _ path: KeyPath<Object, Bool>) {
        self.init(name: name, meaning: meaning, kind: .flag) { .bool($0[keyPath: path]) }
    }

    init(_ name: String, _ meaning: String, _ path: KeyPath<Object, [String]>) {
        self.init(name: name, meaning: meaning, kind: .texts) { .list($0[keyPath: path].map(TemplateValue.text)) }
    }

    init<Element: TemplateObject>(_ name: String, _ meaning: String, _ path: KeyPath<Object, [Element]>) {
        self.init(name: name, meaning: meaning, kind: .list(Element.describedFields)) { .list($0[keyPath: path].map(\.templateValue)) }
    }

    init<Part: TemplateObject>(_ name: String, _ meaning: String, _ path: KeyPath<Object, Part?>) {
        self.init(name: name, meaning: meaning, kind: .section(Part.describedFields)) { $0[keyPath: path]?.templateValue }
    }

    init<Part: TemplateObject>(_ name: String, _ meaning: String, _ path: KeyPath<Object, Part>) {
        self.init(name: name, meaning: meaning, kind: .section(Part.describedFields)) { $0[keyPath: path].templateValue }
    }
}

/// How a template uses a field.
enum TemplateFieldKind {
    /// `{{name}}`, always there.
    case text
    /// `{{name}}`, absent when there is none: use it inside `{{#name}}…{{/name}}`.
    case optionalText
    /// `{{#name}}…{{/name}}` for true.
    case flag
    /// `{{#name}}{{.}}{{/name}}`: once per text.
    case texts
    /// `{{#name}}…{{/name}}`: once per element, whose fields are listed below it.
    case list([FieldDescription])
    /// `{{#name}}…{{/name}}` when there is one: its fields are listed below it.
    case section([FieldDescription])
}

/// A field without its value: what Templates/README.md lists.
struct FieldDescription: Equatable {
    var name: String
    var meaning: String
    var kind: String
    var fields: [FieldDescription]
}

extension TemplateObject {
    static var describedFields: [FieldDescription] {
        fields.map { field in
            switch field.kind {
            case .text: FieldDescription(name: field.name, meaning: field.meaning, kind: "text", fields: [])
            case .optionalText: FieldDescription(name: field.name, meaning: field.meaning, kind: "text or absent", fields: [])
            case .flag: FieldDescription(name: field.name, meaning: field.meaning, kind: "flag", fields: [])
            case .texts: FieldDescription(name: field.name, meaning: field.meaning, kind: "list of text", fields: [])
            case .list(let fields): FieldDescription(name: field.name, meaning: field.meaning, kind: "list", fields: fields)
            case .section(let fields): FieldDescription(name: field.name, meaning: field.meaning, kind: "section", fields: fields)
            }
        }
    }
}
