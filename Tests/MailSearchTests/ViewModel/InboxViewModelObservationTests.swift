import MailSearch
import TestSupport
import Testing

private typealias Fixture = ViewModelFixture

/// Each visible change wakes exactly the observers of what changed (`withObservationTracking`).
@Suite(.hangGuard, .timeLimit(.minutes(1))) @MainActor
struct InboxViewModelObservationTests {
    private func started() async -> (InboxViewModel, InMemoryMailService) {
        let service = Fixture.service()
        let model = Fixture.model(service)
        model.start()
        await model.settle()
        return (model, service)
    }

    @Test func loadingToDataFires() async {
        let service = Fixture.service()
        let model = Fixture.model(service)
        #expect(
            await observationFires(reading: { _ = model.emailsListState }) {
                model.setSearching(false)
            } == false)
        service.setFailure(Fixture.failure, for: .list)
        model.start()
        #expect(
            await observationFires(reading: { _ = model.emailsListState }) {
                await model.settle()
            })
        #expect(model.emailsListState == .error(Fixture.failure.message))
        service.setFailure(nil, for: .list)
        #expect(await observationFires(reading: { _ = model.emailsListState }) { model.refresh() })
        #expect(await observationFires(reading: { _ = model.unpinnedEmails }) { await model.settle() })
        #expect(model.emailsListState == .data)
    }

    @Test func searchModeAndItsStatesFire() async {
        let (model, _) = await started()
        #expect(await observationFires(reading: { _ = model.inboxViewState }) { model.setSearching(true) })
        #expect(await observationFires(reading: { _ = model.searchText }) { model.searchText = "from:alb" })
        #expect(await observationFires(reading: { _ = model.suggestions }) { model.updateQuery("from:min") })
        // The same suggestions for one more letter: nothing to redraw.
        #expect(await observationFires(reading: { _ = model.suggestions }) { model.updateQuery("from:mine") } == false)
        #expect(await observationFires(reading: { _ = model.searchState }) { model.submit() })
        #expect(model.searchState == .searching)
        #expect(await observationFires(reading: { _ = model.searchResults }) { await model.settle() })
        #expect(await observationFires(reading: { _ = model.isSearching }) { model.isSearching = false })
        #expect(model.searchResults.isEmpty)
    }

    @Test func typingDoesNotWakeTheInboxOrTheSearchState() async {
        let (model, _) = await started()
        model.setSearching(true)
        let fired = await observationFires(reading: {
            _ = model.pinnedEmails
            _ = model.unpinnedEmails
            _ = model.searchState
            _ = model.emailsListState
            _ = model.searchResults
        }) {
            model.updateQuery("from:")
            model.updateQuery("from:minerva")
            await model.settle()
        }
        #expect(!fired)
    }

    @Test func flagChangesFireForTheRowsAndTheRollbackNotice() async {
        let (model, service) = await started()
        #expect(await observationFires(reading: { _ = model.unpinnedEmails }) { model.toggleRead(Fixture.id(10)) })
        await model.settle()
        #expect(await observationFires(reading: { _ = model.pinnedEmails }) { model.togglePin(Fixture.id(10)) })
        await model.settle()
        service.refuseFlagChanges(reason: "the mailbox is read-only")
        model.togglePin(Fixture.id(9))
        #expect(
            await observationFires(reading: {
                _ = model.pinnedEmails
                _ = model.notice
            }) { await model.settle() })
        #expect(model.notice?.kind == .flagChangeRolledBack)
        #expect(await observationFires(reading: { _ = model.notice }) { model.dismissNotice() })
    }

    @Test func changesFromAnotherClientFire() async {
        let (model, service) = await started()
        #expect(
            await observationFires(reading: { _ = model.unpinnedEmails }) {
                service.deliver(Fixture.newcomer)
                await until { model.unpinnedEmails.count == 4 }
            })
        #expect(
            await observationFires(reading: { _ = model.pinnedEmails }) {
                service.changeFlags(of: Fixture.id(10), to: [.flagged])
                await until { model.pinnedEmails.count == 2 }
            })
        #expect(
            await observationFires(reading: { _ = model.pinnedEmails }) {
                service.expunge([Fixture.id(8)])
                await until { model.pinnedEmails.count == 1 }
            })
    }

    /// The one published value wakes its reader on any change (the terminal UI reads it), and
    /// only on a change; the accessors are its parts.
    @Test func theStateWakesOnAnyChangeOnly() async {
        let (model, _) = await started()
        model.setSearching(true)
        #expect(await observationFires(reading: { _ = model.state }) { model.updateQuery("from:") })
        #expect(await observationFires(reading: { _ = model.state }) { model.updateQuery("from:") } == false)
        #expect(await observationFires(reading: { _ = model.state }) { model.toggleRead(Fixture.id(10)) })
        await model.settle()
        #expect(model.state.query == model.query)
        #expect(model.state.inboxWindow == model.inboxWindow)
        #expect(model.state.unpinnedEmails == model.unpinnedEmails)
    }

    @Test func loadMoreFires() async {
        let (model, _) = await started()
        #expect(await observationFires(reading: { _ = model.isLoadingMore }) { model.loadMore() })
        #expect(
            await observationFires(reading: {
                _ = model.unpinnedEmails
                _ = model.canLoadMore
            }) { await model.settle() })
    }
}
