// What a tool that embeds `generate` needs is one import: the command, and the pipeline it
// runs (parse is HopeSyncSchema's).
@_exported import HopeSyncGeneratorCore
