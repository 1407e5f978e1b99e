// Tests use the package's one lock box.
@_exported import HopeSyncLocking
