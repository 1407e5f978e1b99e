/// A partial of supabase/triggers.sql.mustache (`{{> …}}`): rendered where that template
/// includes it, it sees what the template sees. Never rendered alone; declared so that the
/// tests check the names it uses against the template's.
protocol TriggersPartial: TemplateContext {
    var triggers: TriggersContext { get }
}

extension TriggersPartial {
    static var partialOf: String? { TriggersContext.template }
    static var fields: [TemplateField<Self>] { fields(of: \.triggers) }
}

/// `supabase/json_depth_guard.sql.mustache`.
struct JSONDepthGuardPartial: TriggersPartial {
    static let template = "supabase/json_depth_guard.sql.mustache"
    static let summary = "the json columns' nesting check, in both branches of the write trigger"

    var triggers: TriggersContext
}

/// `supabase/later_start.sql.mustache`.
struct LaterStartPartial: TriggersPartial {
    static let template = "supabase/later_start.sql.mustache"
    static let summary = "the variable the one-open-row rule reads a later row's start into"

    var triggers: TriggersContext
}

/// `supabase/lock_owner.sql.mustache`.
struct LockOwnerPartial: TriggersPartial {
    static let template = "supabase/lock_owner.sql.mustache"
    static let summary = "the owner's lock, taken before each nextval of the write trigger"

    var triggers: TriggersContext
}

/// `supabase/column_stamps.sql.mustache`.
struct ColumnStampsPartial: TriggersPartial {
    static let template = "supabase/column_stamps.sql.mustache"
    static let summary = "a column-merge row's stamps, from each column's, in both branches of the write trigger"

    var triggers: TriggersContext
}
