// The shared vocabulary (column types and roles, conflict modes, canonical JSON) is part of the
// runtime's API: generated row types name it with nothing but `import HopeSync`.
@_exported import HopeSyncModel
