import HopeSyncSchema

/// `supabase/backfills.sql.mustache`: a migration's backfills, or schema.sql's.
struct BackfillsContext: TemplateContext {
    static let template = "supabase/backfills.sql.mustache"
    static let summary = "backfills (decision 0053): `sync_backfills`, then each backfill, run once per database through the write trigger"

    var backfills: [BackfillStep]

    static var fields: [TemplateField<Self>] {
        [.init("backfills", "each backfill, in order", \.backfills)]
    }
}

/// One backfill as backfills.sql runs it.
struct BackfillStep: TemplateObject {
    var table: String
    var column: String
    var name: String
    var expression: String
    var columnMerge: Bool
    var wholeRow: Bool
    var versioned: Bool

    static var fields: [TemplateField<Self>] {
        [
            .init("table", "the table's name", \.table), .init("column", "the backfilled column", \.column),
            .init("name", "its row in sync_backfills: `table.column@migration`", \.name),
            .init("expression", "schema.yaml's `backfill`, over the row's columns", \.expression),
            .init("columnMerge", "the table merges column by column: the column gets a stamp below every device's", \.columnMerge),
            .init("wholeRow", "the table merges whole rows: the row's pair moves just past itself", \.wholeRow),
            .init("versioned", "a version table: the trigger moves the version", \.versioned),
        ]
    }
}

extension SupabaseRenderer {
    /// `backfills` rendered, nil when there are none (a project without a backfill renders as
    /// before backfills existed).
    func backfillsSQL(_ backfills: [Backfill]) throws -> String? {
        guard !backfills.isEmpty else { return nil }
        return try fragment(
            BackfillsContext(
                backfills: backfills.map { backfill in
                    BackfillStep(
                        table: backfill.table.name, column: backfill.column.name, name: backfill.name,
                        expression: backfill.column.backfill ?? "", columnMerge: backfill.table.mergesColumns,
                        wholeRow: backfill.table.mergesWholeRows, versioned: backfill.table.conflict != .lww)
                }))
    }
}
