import IMAPCore
import MailMIME
import MockIMAPServer
import TestSupport
import Testing

/// The session state machine alone: events in, actions out, no sockets.
@Suite(.hangGuard) struct SessionStateMachineTests {
    typealias Machine = SessionStateMachine

    static func machine(
        profile: Profile = .full, plain: Bool = true, tls: Bool = false, allowPlainText: Bool = false
    ) -> Machine {
        var machine = Machine(
            settings: .init(
                profile: profile, offersStartTLS: plain, allowPlainTextAuthentication: allowPlainText,
                loginTimeout: .seconds(10), autologoutTimeout: .seconds(100)),
            isTLS: tls)
        _ = machine.connected()
        return machine
    }

    static func command(_ tag: String, _ command: Command) -> TaggedCommand {
        TaggedCommand(tag: tag, command: command)
    }

    /// The text of the single tagged response of a `.send` action.
    static func taggedText(_ action: Machine.Action) -> String? {
        guard case .send(let responses) = action, case .tagged(let tagged)? = responses.last else { return nil }
        return String(decoding: ResponseEncoder.encode(.tagged(tagged)), as: UTF8.self)
    }

    @Test func greetingOnPlainTextOffersSTARTTLSAndDisablesLogin() {
        var machine = Machine(settings: .init(profile: .full, offersStartTLS: true), isTLS: false)
        guard case .send(let responses) = machine.connected(),
            case .untagged(.condition(.ok, let text)) = responses.first,
            case .capability(let capabilities)? = text.code
        else {
            Issue.record("no greeting with capabilities")
            return
        }
        #expect(capabilities.contains(.startTLS))
        #expect(capabilities.contains(.loginDisabled))
        #expect(!capabilities.contains(.auth("PLAIN")))
        #expect(machine.state == .notAuthenticated)
    }

    @Test func greetingOverTLSOffersAuthMechanismsAndNoSTARTTLS() {
        let machine = Self.machine(plain: false, tls: true)
        #expect(machine.capabilities.contains(.auth("PLAIN")))
        #expect(machine.capabilities.contains(.auth("XOAUTH2")))
        #expect(!machine.capabilities.contains(.startTLS))
        #expect(!machine.capabilities.contains(.loginDisabled))
    }

    @Test func startTLSThenLoginIsAllowed() {
        var machine = Self.machine()
        let action = machine.commandReceived(Self.command("a1", .startTLS))
        #expect(action == .startTLS(Machine.tagged("a1", .ok, "Begin TLS negotiation now")))
        #expect(machine.state == .startingTLS)
        machine.tlsStarted()
        #expect(machine.isTLS)
        #expect(!machine.capabilities.contains(.startTLS))
        #expect(
            machine.commandReceived(Self.command("a2", .login(username: "alice", password: "secret")))
                == .verifyPassword(tag: "a2", user: "alice", password: "secret"))
        #expect(machine.commandReceived(Self.command("a3", .startTLS)) == .none)  // verifying: no commands
    }

    @Test func loginOverPlainTextIsRefusedWithPrivacyRequired() {
        var machine = Self.machine()
        let action = machine.commandReceived(Self.command("a1", .login(username: "alice", password: "secret")))
        #expect(Self.taggedText(action)?.hasPrefix("a1 NO [PRIVACYREQUIRED]") == true)
        #expect(machine.state == .notAuthenticated)
    }

    @Test func plainTextLoginWhenAllowed() {
        var machine = Self.machine(allowPlainText: true)
        #expect(machine.capabilities.contains(.auth("PLAIN")))
        #expect(
            machine.commandReceived(Self.command("a1", .login(username: "alice", password: "pw")))
                == .verifyPassword(tag: "a1", user: "alice", password: "pw"))
    }

    @Test func acceptedCredentialsLogInAndAnnounceCapabilities() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a1", .login(username: "alice", password: "secret")))
        let action = machine.credentialsChecked(user: "alice", accepted: true)
        #expect(Self.taggedText(action)?.hasPrefix("a1 OK [CAPABILITY IMAP4rev1 ") == true)
        #expect(Self.taggedText(action)?.contains("AUTH=") == false)
        #expect(machine.state == .authenticated(user: "alice", selection: nil))
        #expect(machine.user == "alice")
    }

    @Test func refusedCredentialsAreAuthenticationFailed() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a1", .login(username: "alice", password: "wrong")))
        let action = machine.credentialsChecked(user: "alice", accepted: false)
        #expect(Self.taggedText(action) == "a1 NO [AUTHENTICATIONFAILED] Authentication failed\r\n")
        #expect(machine.state == .notAuthenticated)
    }

    @Test func authenticatePlainWithoutInitialResponseAsksThenVerifies() {
        var machine = Self.machine(tls: true)
        let first = machine.commandReceived(Self.command("a1", .authenticate(mechanism: "plain")))
        #expect(first == .send([.continuation(ContinuationRequest(text: ""))]))
        #expect(machine.parserMode == .authentication)
        let token = ByteString(Base64.encode(Array("\0alice\0secret".utf8)))
        #expect(
            machine.authenticationResponse(token) == .verifyPassword(tag: "a1", user: "alice", password: "secret"))
        #expect(machine.parserMode == .command)
    }

    @Test func authenticatePlainWithInitialResponse() {
        var machine = Self.machine(tls: true)
        let token = ByteString(Base64.encode(Array("alice\0alice\0secret".utf8)))
        #expect(
            machine.commandReceived(Self.command("a1", .authenticate(mechanism: "PLAIN", initialResponse: token)))
                == .verifyPassword(tag: "a1", user: "alice", password: "secret"))
    }

    @Test func authenticationCanBeCancelled() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a1", .authenticate(mechanism: "PLAIN")))
        #expect(Self.taggedText(machine.authenticationResponse("*")) == "a1 BAD authentication cancelled\r\n")
        #expect(machine.state == .notAuthenticated)
    }

    @Test func failedXOAUTH2SendsAnErrorChallengeThenNO() {
        var machine = Self.machine(tls: true)
        let payload = ByteString(Base64.encode(Array("user=alice\u{1}auth=Bearer bad\u{1}\u{1}".utf8)))
        #expect(
            machine.commandReceived(Self.command("x", .authenticate(mechanism: "XOAUTH2", initialResponse: payload)))
                == .verifyToken(tag: "x", user: "alice", token: "bad"))
        guard case .send(let responses) = machine.credentialsChecked(user: "alice", accepted: false),
            case .continuation(let challenge)? = responses.first
        else {
            Issue.record("no error challenge")
            return
        }
        #expect(String(decoding: Base64.decode(challenge.text.string), as: UTF8.self).contains("\"status\":\"401\""))
        #expect(
            Self.taggedText(machine.authenticationResponse(""))
                == "x NO [AUTHENTICATIONFAILED] Authentication failed\r\n")
    }

    @Test func unknownMechanismAndSASLIRWithoutCapability() {
        var machine = Self.machine(tls: true)
        #expect(
            Self.taggedText(machine.commandReceived(Self.command("a", .authenticate(mechanism: "CRAM-MD5"))))?
                .hasPrefix("a NO unsupported authentication mechanism") == true)
        var bare = Self.machine(profile: .imap4rev1, tls: true)
        let token = ByteString(Base64.encode(Array("\0alice\0secret".utf8)))
        #expect(
            Self.taggedText(
                bare.commandReceived(Self.command("b", .authenticate(mechanism: "PLAIN", initialResponse: token))))?
                .hasPrefix("b BAD an initial response needs SASL-IR") == true)
    }

    @Test(arguments: [
        (Command.select("INBOX"), "needs a login first"), (Command.idle, "needs a login first"),
        (Command.fetch(.all, [.flags]), "needs a login first"),
    ])
    func commandsBeforeLoginAreBAD(command: Command, reason: String) {
        var machine = Self.machine(tls: true)
        let text = Self.taggedText(machine.commandReceived(Self.command("t", command)))
        #expect(text?.hasPrefix("t BAD ") == true)
        #expect(text?.contains(reason) == true)
    }

    @Test func selectedStateCommandsNeedASelection() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a", .login(username: "alice", password: "s")))
        _ = machine.credentialsChecked(user: "alice", accepted: true)
        let text = Self.taggedText(machine.commandReceived(Self.command("f", .fetch(.all, [.flags]))))
        #expect(text == "f BAD FETCH needs a selected mailbox (SELECT or EXAMINE first)\r\n")
        #expect(
            machine.commandReceived(Self.command("s", .select("INBOX")))
                == .execute(Self.command("s", .select("INBOX"))))
        machine.executed(selection: .init(mailbox: "INBOX", isReadOnly: false), closesConnection: false)
        #expect(
            machine.commandReceived(Self.command("f", .fetch(.all, [.flags])))
                == .execute(Self.command("f", .fetch(.all, [.flags]))))
        #expect(
            Self.taggedText(machine.commandReceived(Self.command("l", .login(username: "a", password: "b"))))
                == "l BAD already logged in\r\n")
    }

    @Test func idleReportsUpdatesAndEndsWithDone() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a", .login(username: "alice", password: "s")))
        _ = machine.credentialsChecked(user: "alice", accepted: true)
        #expect(
            machine.commandReceived(Self.command("i", .idle))
                == .reportUpdates(prefix: [.continuation(ContinuationRequest(text: "idling"))]))
        #expect(machine.parserMode == .idle)
        #expect(machine.mailboxChanged() == .reportUpdates(prefix: []))
        #expect(Self.taggedText(machine.idleDone()) == "i OK IDLE terminated\r\n")
        #expect(machine.parserMode == .command)
        #expect(machine.mailboxChanged() == .none)
    }

    @Test func onlyDoneEndsIdle() {
        var machine = Self.machine(tls: true)
        _ = machine.commandReceived(Self.command("a", .login(username: "alice", password: "s")))
        _ = machine.credentialsChecked(user: "alice", accepted: true)
        _ = machine.commandReceived(Self.command("i", .idle))
        var parser = CommandParser()
        parser.mode = .idle
        parser.append(Array("NOT DONE\r\n".utf8))
        do {
            _ = try parser.next()
            Issue.record("the parser accepted a line other than DONE")
        } catch {
            #expect(machine.parseFailed(error) == .send([Machine.untagged(.bad, "expected DONE to end IDLE")]))
        }
        #expect(machine.parserMode == .idle)
        #expect(Self.taggedText(machine.idleDone()) == "i OK IDLE terminated\r\n")
    }

    @Test func parseErrorsAnswerBADWithTheTagAndTheLimit() {
        var machine = Self.machine(tls: true)
        var parser = CommandParser(options: ParserOptions(maximumLineLength: 30))
        parser.append(Array("t1 NOOP \(String(repeating: "x", count: 40))\r\nt2 BOGUS\r\n".utf8))
        var texts: [String] = []
        for _ in 0..<2 {
            do {
                _ = try parser.next()
            } catch {
                texts.append(Self.taggedText(machine.parseFailed(error)) ?? "")
            }
        }
        #expect(texts.count == 2)
        #expect(texts.first?.hasPrefix("t1 BAD line too long: ") == true)
        #expect(texts.last == "t2 BAD unknown command BOGUS\r\n")
    }

    @Test func silenceClosesBeforeLoginAfterTheLoginTimeoutOnly() {
        var machine = Self.machine(tls: true)
        #expect(machine.silence(for: .seconds(5)) == .none)
        #expect(machine.silence(for: .seconds(10)) == .close([Machine.untagged(.bye, "Autologout; idle for too long")]))
        var loggedIn = Self.machine(tls: true)
        _ = loggedIn.commandReceived(Self.command("a", .login(username: "alice", password: "s")))
        _ = loggedIn.credentialsChecked(user: "alice", accepted: true)
        #expect(loggedIn.silence(for: .seconds(50)) == .none)
        guard case .close = loggedIn.silence(for: .seconds(100)) else {
            Issue.record("an authenticated session silent past the autologout timeout stayed open")
            return
        }
    }

    @Test func logoutSaysByeThenOKThenCloses() {
        var machine = Self.machine(tls: true)
        #expect(
            machine.commandReceived(Self.command("z", .logout))
                == .close([
                    Machine.untagged(.bye, "MockIMAPServer logging out"), Machine.tagged("z", .ok, "LOGOUT completed"),
                ]))
        #expect(machine.state == .loggedOut)
    }

    @Test func profilesRefuseWhatTheyDoNotAnnounce() {
        var machine = Self.machine(profile: .imap4rev1, tls: true)
        _ = machine.commandReceived(Self.command("a", .login(username: "alice", password: "s")))
        _ = machine.credentialsChecked(user: "alice", accepted: true)
        let text = Self.taggedText(machine.commandReceived(Self.command("i", .idle)))
        #expect(text == "i BAD IDLE needs IDLE, which this server does not announce\r\n")
        machine.executed(selection: .init(mailbox: "INBOX", isReadOnly: false), closesConnection: false)
        let sort = Command.uidSort(criteria: [SortCriterion(.arrival)], charset: "UTF-8", keys: [.all])
        #expect(Self.taggedText(machine.commandReceived(Self.command("s", sort)))?.contains("SORT needs SORT") == true)
    }
}
