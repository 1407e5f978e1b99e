import Foundation
import HopeSchema
@_spi(Transport) import HopeSync
import HopeSyncTestSupport
import Testing

/// Files of shared rows (decision 0048, "files of shared rows"): a photo of a task in a shared
/// list is in the list's Storage folder, which its members read and its owners and editors
/// write, under the generated policies on PostgreSQL through the test Storage server.
@Suite struct SharedFileTests {
    let alice = UUID()
    let bob = UUID()
    let photo = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
    let kept = Data("a photo Bob also keeps in a task of his own".utf8)

    /// A device that pulls through the pull function, naming its scopes, as an app does.
    private func device(_ name: String, _ user: UUID, _ server: TestServer, _ storage: StorageServer) throws -> FileDevice {
        try FileDevice(name, user: user, server: server, storage: storage, schema: GeneratedSchema.app)
    }

    /// A list of Alice's with a task and `photos`, shared with `member` as `role`, synced.
    private func sharedList(
        by owner: FileDevice, photos: [Data], with member: UUID, as role: MemberRole
    ) async throws -> (TaskList, TaskItem, [TaskPhoto]) {
        let list = TaskList(name: "Garden")
        let task = TaskItem(title: "Plant the roses", listId: list.id)
        let saved = try await owner.store.write { writer in
            try writer.save(list)
            try writer.save(task)
            return try photos.map { bytes in
                try writer.save(TaskPhoto(taskId: task.id, photo: try writer.attachFile(bytes, fileExtension: "jpg")))
            }
        }
        try await owner.sync()
        try await owner.engine.share(list, with: member, as: role)
        return (list, task, saved)
    }

    @Test func aMembersDeviceDownloadsASharedPhotoAndDropsItWhenTheMemberIsRemoved() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let alicePhone = try device("alice-phone", alice, server, storage)
        let (list, task, photos) = try await sharedList(by: alicePhone, photos: [photo, kept], with: bob, as: .editor)
        let (shared, alsoOwn) = (photos[0].photo, photos[1].photo)
        // Uploaded into the list's folder, not Alice's.
        let inList = FileObject(bucket: "task-photos", owner: list.id, file: shared)
        #expect(FileManager.default.fileExists(atPath: storage.folder.appendingPathComponent("task-photos/\(inList.path)").path))
        #expect(try server.objectCount() == 2 && server.photoRowsWithoutTheirObject() == 0)

        let bobPhone = try device("bob-phone", bob, server, storage)
        let first = try await bobPhone.sync()
        #expect(first.filesDownloaded == 2)
        #expect(try bobPhone.bytes(of: shared) == photo && bobPhone.bytes(of: alsoOwn) == kept)
        // Bob keeps the second photo's bytes in a task of his own, too.
        try await bobPhone.store.write { writer in
            let own = try writer.save(TaskItem(title: "Bob's roses"))
            try writer.save(TaskPhoto(taskId: own.id, photo: try writer.attachFile(kept, fileExtension: "jpg")))
        }
        try await bobPhone.sync()
        // Offline, Bob adds a photo to the shared task, which the server never gets.
        await bobPhone.engine.setNetworkEnabled(false)
        let unsent = try await bobPhone.store.write { writer in
            try writer.save(TaskPhoto(taskId: task.id, photo: try writer.attachFile(Data("unsent".utf8), fileExtension: "jpg")))
        }

        try await alicePhone.engine.removeMember(bob, from: list)
        await bobPhone.engine.setNetworkEnabled(true)
        try await bobPhone.sync()
        // The list's photo is gone from Bob's device; what he still holds stays.
        #expect(try bobPhone.bytes(of: shared) == nil)
        #expect(try bobPhone.status(of: shared) == nil)
        #expect(try bobPhone.bytes(of: alsoOwn) == kept)
        // His unsent photo is on the rejected list, its bytes still here to copy out.
        let rejected = try bobPhone.store.rejectedMutations()
        #expect(rejected.map(\.rowID) == [unsent.id])
        #expect(try bobPhone.bytes(of: unsent.photo) == Data("unsent".utf8))
        #expect(try server.count(of: "task_photos") == 3 && server.photoRowsWithoutTheirObject() == 0)

        // Bob's token, issued before the removal, reads the list's folder no more.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let bobsToken = Credentials(userID: bob, accessToken: TestJWT.token(for: bob))
        await #expect { try await storage.transport().download(inList, to: scratch, for: bobsToken) { _, _ in } } throws: {
            ($0 as? SyncError)?.isObjectNotFound == true
        }
    }

    /// Who may do what in a list's folder: an editor uploads, a viewer downloads but cannot
    /// upload, a stranger neither.
    @Test func aListsFolderIsWrittenByItsEditorsAndReadByItsMembersOnly() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let alicePhone = try device("alice-phone", alice, server, storage)
        let (list, _, photos) = try await sharedList(by: alicePhone, photos: [photo], with: bob, as: .viewer)
        let editor = UUID()
        try await alicePhone.engine.share(list, with: editor, as: .editor)
        let stranger = UUID()
        let transport = storage.transport()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: scratch) }
        func credentials(_ user: UUID) -> Credentials { Credentials(userID: user, accessToken: TestJWT.token(for: user)) }

        let inList = FileObject(bucket: "task-photos", owner: list.id, file: photos[0].photo)
        try await transport.download(inList, to: scratch, for: credentials(bob)) { _, _ in }
        #expect(try Data(contentsOf: scratch) == photo)
        try FileManager.default.removeItem(at: scratch)
        await #expect { try await transport.download(inList, to: scratch, for: credentials(stranger)) { _, _ in } } throws: {
            ($0 as? SyncError)?.isObjectNotFound == true
        }

        try Data("new".utf8).write(to: scratch)
        let added = FileObject(bucket: "task-photos", owner: list.id, file: try #require(SyncFile(name: String(repeating: "e", count: 64))))
        for refused in [bob, stranger] {
            await #expect { try await transport.upload(scratch, as: added, for: credentials(refused)) { _ in } } throws: {
                ($0 as? SyncError)?.isObjectRefused == true
            }
        }
        #expect(try server.objectCount() == 1)
        try await transport.upload(scratch, as: added, for: credentials(editor)) { _ in }
        #expect(try server.objectCount() == 2)
    }

    /// Alice moves a task with its photo from one list to another: Carol, a member of the second
    /// list only, gets the photo (Alice's device put it in the second list's folder before the
    /// move went up).
    @Test func aPhotoMovedWithItsTaskToAnotherListReachesThatListsMembers() async throws {
        let server = try TestServer()
        let storage = try StorageServer(database: server.database)
        let alicePhone = try device("alice-phone", alice, server, storage)
        let (_, task, photos) = try await sharedList(by: alicePhone, photos: [photo], with: bob, as: .viewer)
        let other = TaskList(name: "Balcony")
        try await alicePhone.store.write { try $0.save(other) }
        try await alicePhone.sync()
        let carol = UUID()
        try await alicePhone.engine.share(other, with: carol, as: .viewer)

        try await alicePhone.store.write { try $0.update(TaskItem.self, id: task.id) { $0.listId = other.id } }
        let moved = try await alicePhone.sync()
        #expect(moved.filesUploaded == 1)
        #expect(try server.photoRowsWithoutTheirObject() == 0)

        let carolPhone = try device("carol-phone", carol, server, storage)
        #expect(try await carolPhone.sync().filesDownloaded == 1)
        #expect(try carolPhone.bytes(of: photos[0].photo) == photo)
    }
}
