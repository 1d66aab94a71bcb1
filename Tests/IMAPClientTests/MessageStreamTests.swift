import Synchronization
import TestSupport
import Testing

@testable import IMAPClient

/// The stream without a session: values in order across the iterator's batches, what counts as
/// buffered, the end and a failure after the last batch, cancellation while the iterator still
/// holds values.
@Suite(.hangGuard) struct MessageStreamTests {
    @Test func valuesComeInOrderAcrossBatches() async throws {
        let stream = MessageStream<Int>()
        let iterator = stream.makeAsyncIterator()
        // A window into the empty buffer (moved whole), then one value, then a window behind it
        // (appended): the gaps of the windows are skipped.
        var first: [Int?] = [0, nil, 1, 2, nil]
        stream.yield(movingFrom: &first)
        #expect(first.isEmpty)
        stream.yield(3)
        var second: [Int?] = [nil, 4, 5]
        stream.yield(movingFrom: &second)
        var received: [Int] = []
        for _ in 0..<3 { received.append(try #require(try await iterator.next())) }
        // The iterator took all six; what comes now is a second batch.
        var third: [Int?] = [nil, nil]
        stream.yield(movingFrom: &third)
        var fourth: [Int?] = [6, nil, 7]
        stream.yield(movingFrom: &fourth)
        for value in 8..<300 { stream.yield(value) }
        stream.finish()
        while let value = try await iterator.next() { received.append(value) }
        #expect(received == Array(0..<300))
        #expect(stream.progress.received == 300)
    }

    @Test func aProducerWaitingForDemandWakesOnlyWhenTheIteratorHandedOutAllItTook() async throws {
        let stream = MessageStream<Int>()
        var window: [Int?] = [0, 1, nil, 2]
        stream.yield(movingFrom: &window)
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // The buffer is empty, but two values are still the iterator's to hand out.
        #expect(await stream.waitForDemand(bufferedAtMost: 2))
        let woken = RaisedFlag()
        let drained = Task {
            let outcome = await stream.waitForDemand(bufferedAtMost: 0)
            woken.raise()
            return outcome
        }
        while !stream.isProducerWaiting && !woken.isRaised { await Task.yield() }
        #expect(!woken.isRaised, "woken while the iterator held two values")
        #expect(try await iterator.next() == 1)
        #expect(try await iterator.next() == 2)
        #expect(stream.isProducerWaiting)
        // One more arrives: asking again takes it, which is not yet a drained stream.
        stream.yield(3)
        #expect(try await iterator.next() == 3)
        #expect(stream.isProducerWaiting)
        // Asking once more, with nothing buffered, says the consumer has all it took.
        let next = Task { try await iterator.next() }
        #expect(await drained.value)
        stream.finish()
        #expect(try await next.value == nil)
    }

    @Test func valuesTheIteratorHoldsStillCountAsBuffered() async throws {
        let stream = MessageStream<Int>()
        for value in 0..<100 { stream.yield(value) }
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // All 100 left the buffer; 99 of them are in the iterator, not yet handed out.
        #expect(stream.bufferedCount == 99)
        #expect(try await iterator.next() == 1)
        #expect(stream.bufferedCount == 98)
        for expected in 2..<100 { #expect(try await iterator.next() == expected) }
        #expect(stream.bufferedCount == 0)
        stream.finish()
        #expect(try await iterator.next() == nil)
    }

    @Test func aFailureComesAfterTheLastValue() async throws {
        let stream = MessageStream<Int>()
        for value in 0..<70 { stream.yield(value) }
        stream.finish(throwing: IMAPError(.connection, "the server closed the connection"))
        var received = 0
        do {
            for try await value in stream {
                #expect(value == received)
                received += 1
            }
            Issue.record("the stream ended without its failure")
        } catch {
            #expect(error.code == .connection)
        }
        #expect(received == 70)
    }

    @Test func aCancelledConsumerStopsAtItsNextValueThoughItsIteratorHoldsMore() async throws {
        let stream = MessageStream<Int>()
        for value in 0..<200 { stream.yield(value) }
        let consumer = Task { () -> (Int, IMAPError.Code?) in
            var count = 0
            do {
                for try await _ in stream {
                    count += 1
                    if count == 10 { withUnsafeCurrentTask { $0?.cancel() } }
                }
            } catch let error as IMAPError {
                return (count, error.code)
            } catch {
                return (count, nil)
            }
            return (count, nil)
        }
        let (count, code) = await consumer.value
        #expect(count == 10)
        #expect(code == .cancelled)
        #expect(stream.isConsumerGone)
    }
}

/// A flag one task raises and another reads.
private final class RaisedFlag: Sendable {
    private let raised = Atomic(false)
    func raise() { raised.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { raised.load(ordering: .sequentiallyConsistent) }
}
