/// A partial of supabase/triggers.sql.mustache (`{{> …}}`): rendered where that template
/// includes it, it sees what the template sees. Never rendered alone: declared so that the
/// tests check the names it uses against the template's, and the README names it.
protocol TriggersPartial: TemplateContext {}

extension TriggersPartial {
    static var partialOf: String? { TriggersContext.template }

    static var fields: [TemplateField<Self>] {
        TriggersContext.fields.map { TemplateField(name: $0.name, meaning: $0.meaning, kind: $0.kind) { _ in nil } }
    }
}

enum JSONDepthGuardPartial: TriggersPartial {
    static let template = "supabase/json_depth_guard.sql.mustache"
    static let summary = "the json columns' nesting check, in both branches of the write trigger"
}

enum LaterStartPartial: TriggersPartial {
    static let template = "supabase/later_start.sql.mustache"
    static let summary = "the variable the one-open-row rule reads a later row's start into"
}

enum LockOwnerPartial: TriggersPartial {
    static let template = "supabase/lock_owner.sql.mustache"
    static let summary = "the owner's lock, taken before each nextval of the write trigger"
}

enum ColumnStampsPartial: TriggersPartial {
    static let template = "supabase/column_stamps.sql.mustache"
    static let summary = "a column-merge row's stamps, from each column's, in both branches of the write trigger"
}

enum PokeTriggersPartial: TriggersPartial {
    static let template = "supabase/poke_triggers.sql.mustache"
    static let summary = "an unshared table's statement triggers that poke the owners a write reached (public.sync_poke_users)"
}

/// The partial of supabase/sequence.sql.mustache: what every table shares for pokes.
enum PokesPartial: TemplateContext {
    static let template = "supabase/pokes.sql.mustache"
    static let summary = "the poke function, its triggers' function and the Realtime policies every table shares"
    static var partialOf: String? { SequenceContext.template }
    static var fields: [TemplateField<Self>] { [] }
}
