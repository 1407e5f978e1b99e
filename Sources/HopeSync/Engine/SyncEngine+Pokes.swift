import Foundation
import HopeSyncModel

/// What the engine does with a poke source: pull what a poke names, at once; pull everything at
/// each (re)connection and each disconnection (pokes may have passed unheard); and poll slowly
/// only while connected. Nothing here wakes a pass while a failure is being waited out.
extension SyncEngine {
    /// What the pokes heard since the last pass ask for.
    enum PokedPull {
        case nothing
        case tables([TableSchema])
        case everything
    }

    func listenForPokes() {
        guard let pokes, pokeListener == nil else { return }
        let events = pokes.events(for: store.userID, credentials: credentials)
        pokeListener = Task { [weak self] in
            for await event in events {
                await self?.received(event)
            }
        }
    }

    func stopListeningForPokes() {
        pokeListener?.cancel()
        pokeListener = nil
        pokesConnected = false
        forgetPokes()
    }

    func received(_ event: PokeEvent) {
        guard loop != nil, networkEnabled.value else { return }
        switch event.kind {
        case .connected, .disconnected:
            pokesConnected = event.kind == .connected
            if failures == 0 { wakeUp() }
        default:
            if let table = event.table {
                // A table this build does not sync (a newer schema's) has nothing to pull here.
                guard store.schema.tables.contains(where: { $0.name == table }) else { return }
                // nil: no server_seq said, so the table is pulled whatever its cursor.
                let seen: Int64?? = pokedTables[table]
                let highest: Int64? =
                    switch seen {
                    case .none: event.serverSeq
                    case .some(.none): nil
                    case .some(.some(let earlier)): event.serverSeq.map { max($0, earlier) }
                    }
                pokedTables.updateValue(highest, forKey: table)
            } else {
                pokedEverything = true
            }
            if failures == 0 { wakeForPokes() }
        }
    }

    /// The pull the pokes heard since the last pass want, forgetting them: each named table
    /// whose cursor is behind the server_seq its poke said (a device that pulled since has the
    /// write already), or everything when a poke named no table or a table is still to be
    /// pulled again from the start after an upgrade (the full pass finishes that) or a poke named
    /// a membership table. A table
    /// whose commits may land out of order (a lookback) is pulled whatever its cursor: a
    /// transaction can commit a server_seq below rows the device has already pulled.
    func pokedPull() throws(SyncError) -> PokedPull {
        defer { forgetPokes() }
        if pokedEverything { return .everything }
        guard !pokedTables.isEmpty else { return .nothing }
        if !(try store.tablesAwaitingRepull()).isEmpty { return .everything }
        // A membership changed (the user added, removed, the scope deleted): only a whole pass's
        // answer lists the scopes the user reads now, so a scope that ended leaves at once.
        if store.schema.tables.contains(where: { $0.scope?.kind == .membership && pokedTables.keys.contains($0.name) }) {
            return .everything
        }
        var tables: [TableSchema] = []
        for table in store.schema.tables {
            guard let poked = pokedTables[table.name] else { continue }
            if table.ordering == .exact, let serverSeq = poked, try store.cursor(for: table) >= serverSeq { continue }
            tables.append(table)
        }
        return tables.isEmpty ? .nothing : .tables(tables)
    }

    func forgetPokes() {
        pokedTables = [:]
        pokedEverything = false
    }
}
