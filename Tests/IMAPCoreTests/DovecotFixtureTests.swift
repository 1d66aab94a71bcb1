import IMAPCore
import TestSupport
import Testing

@Suite(.cpuBound) struct DovecotFixtureTests {
    @Test(arguments: ["session.server.txt", "fetch-envelope-20k.server.txt", "fetch-bodystructure-2k.server.txt"])
    func everyResponseParsesWithNothingUnknownOrInvalid(file: String) throws {
        let responses = try ResponseParser.parseAll(try Fixtures.dovecot(file))
        #expect(responses.count > 10)
        for response in responses {
            if case .untagged(.unknown(let name, _)) = response {
                Issue.record("unknown response \(name)")
            }
            if case .untagged(.fetch(let fetch)) = response {
                for attribute in fetch.attributes {
                    if case .unknown(let name, _) = attribute { Issue.record("unknown FETCH item \(name)") }
                    if case .bodyStructure(.invalid(let raw)) = attribute { Issue.record("invalid body \(raw)") }
                }
            }
        }
    }
}
