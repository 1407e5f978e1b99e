import Foundation
import HopeSync
import Testing

/// The public types that may gain members read as enums did: `case .x:` matches, `==` compares,
/// and what a member carries is a property.
@Suite struct GrowableTypesTests {
    @Test func anErrorCodeMatchesInASwitch() {
        func kind(_ code: SyncError.Code) -> String {
            switch code {
            case .connectivity, .networkDisabled: "network"
            case .localDatabase: "disk"
            default: "other"
            }
        }
        #expect(kind(.networkDisabled) == "network" && kind(.localDatabase) == "disk" && kind(.server) == "other")
        #expect(SyncError.Code.schemaDrift.description == "schemaDrift")
        #expect(Set([SyncError.Code.server, .server, .cancelled]).count == 2)
    }

    @Test func aPhaseCarriesWhatItsKindNeeds() {
        let until = Date(timeIntervalSince1970: 60)
        let drift = SchemaDrift(table: "sessions", column: "note")
        #expect(SyncStatus.Phase.backingOff(until: until).kind == .backingOff)
        #expect(SyncStatus.Phase.backingOff(until: until).retryAt == until)
        #expect(SyncStatus.Phase.schemaDrift(drift).schemaDrift == drift)
        #expect(SyncStatus.Phase.schemaDrift(drift) == .schemaDrift(drift))
        #expect(SyncStatus.Phase.idle.retryAt == nil && SyncStatus.Phase.idle.schemaDrift == nil)
        #expect(SyncStatus.Phase.backingOff(until: until) != .backingOff(until: until.addingTimeInterval(1)))
        switch SyncStatus.Phase.waitingForSignIn {
        case .idle, .syncing: Issue.record("matched another phase")
        case .waitingForSignIn: break
        default: Issue.record("matched nothing")
        }
    }

    @Test func aTableScopeCarriesWhatItsKindNeeds() {
        let photos = TableScope.follows(through: "task_id", column: "list_id", in: "task_lists", members: "task_lists_members")
        #expect(photos.kind == .follows && photos.column == "list_id" && photos.through == "task_id")
        #expect(photos.scopeTable == "task_lists" && photos.membershipTable == "task_lists_members")
        #expect(TableScope.scope("task_lists", members: "task_lists_members").column == "id")
        #expect(TableScope.membership(of: "task_lists", table: "task_lists_members").column == "scope_id")
        #expect(TableScope.scoped(by: "list_id", in: "task_lists", members: "task_lists_members").through == nil)
        switch TableScope.membership(of: "task_lists", table: "task_lists_members").kind {
        case .scope, .scoped, .follows: Issue.record("matched another kind")
        case .membership: break
        default: Issue.record("matched nothing")
        }
    }

    @Test func anOperationKeepsItsStoredText() throws {
        #expect(MutationOperation(rawValue: "DELETE") == .delete)
        #expect(MutationOperation(rawValue: "INSERT") == nil)
        let encoded = try JSONEncoder().encode([MutationOperation.update])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["UPDATE"]"#)
        #expect(try JSONDecoder().decode([MutationOperation].self, from: encoded) == [.update])
    }
}
