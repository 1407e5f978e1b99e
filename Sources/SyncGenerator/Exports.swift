// What a tool that embeds `generate` needs is one import: the command, and the pipeline it
// runs (parse is SyncSchema's).
@_exported import SyncGeneratorCore
