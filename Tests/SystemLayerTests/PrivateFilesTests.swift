import Glibc
import SystemLayer
import Testing

/// The files we keep are ours alone: never reached through a link, never another user's, 0600
/// in a 0700 directory whatever was there before.
@Suite struct PrivateFilesTests {
    /// A fresh directory under /tmp, removed at the end of the test.
    final class Scratch {
        let path: String

        init() {
            var template = Array("/tmp/private-files-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
            path = String(cString: made)
        }

        deinit {
            var status = stat()
            guard lstat(path, &status) == 0 else { return }
            // Lightweight cleanup; a left-over in /tmp does no harm to later runs.
            _ = system("rm -rf '\(path)'")
        }

        func make(_ name: String, mode: mode_t, contents: String = "old") -> String {
            let file = path + "/" + name
            let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            precondition(descriptor >= 0, "cannot create \(file)")
            _ = contents.withCString { write(descriptor, $0, strlen($0)) }
            close(descriptor)
            chmod(file, mode)
            return file
        }
    }

    static func mode(_ path: String) -> mode_t {
        var status = stat()
        #expect(lstat(path, &status) == 0, "\(path) is missing")
        return status.st_mode & 0o777
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    @Test func aDirectoryThatIsALinkIsRefusedAndNothingIsWrittenWhereItPoints() throws {
        let scratch = Scratch()
        let elsewhere = scratch.path + "/another-users-directory"
        #expect(mkdir(elsewhere, 0o777) == 0)
        let directory = scratch.path + "/mailsearch"
        #expect(symlink(elsewhere, directory) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.prepareDirectory(directory) }
        #expect(throws: PrivateFileError.self) {
            try PrivateFiles.writeAtomically(Array("subjects".utf8), to: directory + "/history.json")
        }
        #expect(!Self.exists(elsewhere + "/history.json"))
        do {
            try PrivateFiles.prepareDirectory(directory)
        } catch {
            #expect(error.description.contains("symbolic link"))
        }
    }

    @Test func aDanglingLinkWhereAFileShouldBeIsRefusedAndItsTargetNotCreated() throws {
        let scratch = Scratch()
        let target = scratch.path + "/target.sqlite"
        let file = scratch.path + "/summaries.sqlite"
        #expect(symlink(target, file) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.prepareFile(file) }
        #expect(throws: PrivateFileError.self) { try PrivateFiles.read(file) }
        #expect(!Self.exists(target))
    }

    @Test func aLinkToAReadableFileIsNotReadThrough() throws {
        let scratch = Scratch()
        let target = scratch.make("target.json", mode: 0o644, contents: "someone else's")
        let file = scratch.path + "/people.json"
        #expect(symlink(target, file) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.read(file) }
        // A write replaces the link itself; the file it pointed to keeps its contents.
        try PrivateFiles.writeAtomically(Array("ours".utf8), to: file)
        #expect(try PrivateFiles.read(file) == Array("ours".utf8))
        #expect(try String(decoding: #require(Self.contents(target)), as: UTF8.self) == "someone else's")
    }

    @Test func looseModesAreTightened() throws {
        let scratch = Scratch()
        let directory = scratch.path + "/state"
        #expect(mkdir(directory, 0o755) == 0)
        chmod(directory, 0o755)
        let file = directory + "/history.json"
        #expect(close(open(file, O_WRONLY | O_CREAT, 0o644)) == 0)
        chmod(file, 0o644)
        try PrivateFiles.prepareDirectory(directory)
        #expect(Self.mode(directory) == 0o700)
        #expect(try PrivateFiles.read(file) == [])
        #expect(Self.mode(file) == 0o600)
    }

    @Test func newDirectoriesAndFilesArePrivateWhateverTheUmask() throws {
        let scratch = Scratch()
        let previous = umask(0)
        defer { umask(previous) }
        let file = scratch.path + "/a/b/cache.sqlite"
        try PrivateFiles.prepareDirectory(PrivateFiles.directory(of: file))
        try PrivateFiles.prepareFile(file)
        #expect(Self.mode(scratch.path + "/a") == 0o700)
        #expect(Self.mode(scratch.path + "/a/b") == 0o700)
        #expect(Self.mode(file) == 0o600)
        try PrivateFiles.writeAtomically(Array("x".utf8), to: scratch.path + "/a/b/history.json")
        #expect(Self.mode(scratch.path + "/a/b/history.json") == 0o600)
    }

    @Test func aFileThatIsNotARegularFileIsRefused() throws {
        let scratch = Scratch()
        let fifo = scratch.path + "/people.json"
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.read(fifo) }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func anotherUsersDirectoryOrFileIsRefused() throws {
        let scratch = Scratch()
        let directory = scratch.path + "/theirs"
        #expect(mkdir(directory, 0o700) == 0)
        #expect(chown(directory, 65534, 65534) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.prepareDirectory(directory) }
        let file = scratch.make("their-file.json", mode: 0o600)
        #expect(chown(file, 65534, 65534) == 0)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.read(file) }
        #expect(throws: PrivateFileError.self) { try PrivateFiles.checkTrusted(file) }
    }

    @Test func aConfigFileOthersCanWriteIsNotTrusted() throws {
        let scratch = Scratch()
        let file = scratch.make("config.json", mode: 0o600)
        try PrivateFiles.checkTrusted(file)
        chmod(file, 0o666)
        do {
            try PrivateFiles.checkTrusted(file)
            Issue.record("a world-writable file was trusted")
        } catch {
            #expect(error.description.contains("can be written by other users"))
            #expect(error.description.contains("chmod go-w"))
        }
        chmod(file, 0o620)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.checkTrusted(file) }
        chmod(file, 0o644)
        try PrivateFiles.checkTrusted(file)
        chmod(scratch.path, 0o777)
        #expect(throws: PrivateFileError.self) { try PrivateFiles.checkTrusted(file) }
        chmod(scratch.path, 0o700)
    }

    static func contents(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(descriptor, &buffer, buffer.count)
        return count < 0 ? nil : Array(buffer[0..<count])
    }
}
