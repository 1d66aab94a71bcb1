import TestSupport
import Testing

@testable import IMAPClient

/// The stream without a session: values in order across the iterator's batches, what counts as
/// buffered, the end and a failure after the last batch, cancellation while the iterator still
/// holds values.
@Suite(.hangGuard) struct MessageStreamTests {
    @Test func valuesComeInOrderAcrossBatches() async throws {
        let stream = MessageStream<Int>()
        let count = MessageStream<Int>.batchLimit * 3 + 5
        for value in 0..<count { stream.yield(value) }
        stream.finish()
        var received: [Int] = []
        for try await value in stream { received.append(value) }
        #expect(received == Array(0..<count))
    }

    @Test func valuesTheIteratorHoldsStillCountAsBuffered() async throws {
        let stream = MessageStream<Int>()
        for value in 0..<100 { stream.yield(value) }
        let iterator = stream.makeAsyncIterator()
        #expect(try await iterator.next() == 0)
        // One batch (64) left the buffer; 63 of it are in the iterator, not yet handed out.
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
