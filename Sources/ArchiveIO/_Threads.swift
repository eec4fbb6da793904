// MARK: Internal API
//
// The few threading primitives the frame-parallel encoder and decoder need, over pthreads (this module
// depends on nothing but libzstd and the C library): a mutex with condition variables, and a pool of
// threads that run submitted jobs in order, each thread with a context of its own (a `ZSTD_CCtx` or
// `ZSTD_DCtx`, which must not be used by two threads at once).
//
// Who owns what: a job's slot (its buffers) belongs to the submitting thread until `submit`, to the worker
// from when it takes the job until it marks the slot done under the pool's lock, and to the submitting
// thread again once it has seen that mark under the same lock. Every hand-over passes through the lock,
// which is what makes the `@unchecked Sendable` of the slot classes sound.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with two condition variables: `work` (something to do) and `done` (something finished).
final class _Monitor: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let workCondition: UnsafeMutablePointer<pthread_cond_t>
    private let doneCondition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        workCondition = .allocate(capacity: 1)
        workCondition.initialize(to: pthread_cond_t())
        pthread_cond_init(workCondition, nil)
        doneCondition = .allocate(capacity: 1)
        doneCondition.initialize(to: pthread_cond_t())
        pthread_cond_init(doneCondition, nil)
    }

    deinit {
        pthread_cond_destroy(workCondition)
        pthread_cond_destroy(doneCondition)
        pthread_mutex_destroy(mutex)
        workCondition.deallocate()
        doneCondition.deallocate()
        mutex.deallocate()
    }

    @inline(__always)
    func locked<T>(_ body: () throws(ZstdError) -> T) throws(ZstdError) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    @inline(__always)
    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Waits for `signalWork` (call with the lock held, in a loop over the condition).
    func waitForWork() { pthread_cond_wait(workCondition, mutex) }
    /// Waits for `signalDone` (call with the lock held, in a loop over the condition).
    func waitForDone() { pthread_cond_wait(doneCondition, mutex) }
    func signalWork() { pthread_cond_signal(workCondition) }
    func broadcastWork() { pthread_cond_broadcast(workCondition) }
    func broadcastDone() { pthread_cond_broadcast(doneCondition) }
}

/// Threads that run submitted jobs first in, first out; thread `i` passes `contexts[i]` to every job it runs.
///
/// A job signals its own completion (under ``monitor``, then ``_Monitor/broadcastDone()``); the pool
/// only hands jobs out. ``stop()`` lets the threads finish the jobs already queued, then joins them.
final class _WorkerPool<Context: AnyObject & Sendable>: @unchecked Sendable {
    typealias Job = @Sendable (Context) -> Void

    let monitor = _Monitor()
    private let contexts: [Context]
    // Guarded by `monitor`.
    private var queue: [Job] = []
    private var queueHead = 0
    private var stopping = false
    // Written once by `init` before any thread runs, read by `stop()`.
    private var threads: [_Thread] = []

    init(contexts: [Context]) {
        self.contexts = contexts
        for context in contexts {
            threads.append(_Thread { [unowned self] in self.serve(context) })
        }
    }

    deinit { precondition(threads.isEmpty || stopping, "_WorkerPool deallocated without stop()") }

    var count: Int { contexts.count }

    /// Queues `job` for the next free thread.
    func submit(_ job: @escaping Job) {
        monitor.locked {
            precondition(!stopping, "_WorkerPool.submit after stop()")
            queue.append(job)
        }
        monitor.signalWork()
    }

    /// Runs the queued jobs to their end, then stops and joins every thread. Idempotent.
    func stop() {
        let first: Bool = monitor.locked {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        monitor.broadcastWork()
        for thread in threads { thread.join() }
        threads.removeAll()
    }

    private func serve(_ context: Context) {
        while true {
            let job: Job? = monitor.locked {
                while queueHead == queue.count && !stopping { monitor.waitForWork() }
                guard queueHead < queue.count else { return nil }
                let job = queue[queueHead]
                queueHead += 1
                if queueHead == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    queueHead = 0
                }
                return job
            }
            guard let job else { return }
            job(context)
        }
    }
}

/// A joinable pthread running a closure.
final class _Thread: @unchecked Sendable {
    #if canImport(Darwin)
    private var handle: pthread_t?
    #else
    private var handle = pthread_t()
    #endif
    private var joined = false

    /// Starts a thread running `body`. Traps when the system cannot create a thread (out of resources).
    init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(_ThreadBody(body)).toOpaque()
        let result = pthread_create(&handle, nil, { raw in
            #if canImport(Darwin)
            let body = Unmanaged<_ThreadBody>.fromOpaque(raw).takeRetainedValue()
            #else
            let body = Unmanaged<_ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            #endif
            body.run()
            return nil
        }, box)
        precondition(result == 0, "pthread_create failed: \(_errnoDescription(result))")
    }

    /// Waits for the thread to end. Call once.
    func join() {
        precondition(!joined, "_Thread.join twice")
        joined = true
        #if canImport(Darwin)
        if let handle { pthread_join(handle, nil) }
        #else
        pthread_join(handle, nil)
        #endif
    }
}

private final class _ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
