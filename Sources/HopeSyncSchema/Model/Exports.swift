// The vocabulary shared with the runtime (column types and roles, conflict and merge modes,
// reserved names) is the model's own: whoever reads a Schema reads it in those words.
@_exported import HopeSyncModel
