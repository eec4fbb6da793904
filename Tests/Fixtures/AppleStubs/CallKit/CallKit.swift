// A stand-in for the Call Directory part of Apple's CallKit framework (iOS 16 SDK), for type-checking and
// running the code that `smsfilter export-extension` generates on Linux, where there is no iOS SDK. It
// declares the API surface the generated code uses, with Apple's Swift names, signatures, enum cases and raw
// values (shared/DOMAIN.md §2: CXCallDirectory.h, CXCallDirectoryExtensionContext.h, CXCallDirectoryProvider.h,
// CXError.h; dotnet/macios src/callkit.cs; Apple's docs).
//
// The context also behaves like the system where the tests need it: it records every call, and at
// `completeRequest` it reports entries out of order, duplicated, or removed in a full load to the delegate
// with the CallKit error codes. Members whose names start with `_test` do not exist in the SDK; generated
// code must never use them.
//
// Built by the tests with `swiftc -emit-module -module-name CallKit`.

import Foundation

// MARK: - CXCallDirectory.h

/// `CXCallDirectoryPhoneNumber` (`int64_t`): country calling code followed by the national number.
public typealias CXCallDirectoryPhoneNumber = Int64

/// `CXCallDirectoryPhoneNumberMax` = `INT64_MAX - 1`.
public let CXCallDirectoryPhoneNumberMax: CXCallDirectoryPhoneNumber = .max - 1

// MARK: - CXError.h

public let CXErrorDomainCallDirectoryManager = "com.apple.CallKit.error.calldirectorymanager"

/// `CXErrorCodeCallDirectoryManagerError` (NS_ERROR_ENUM): a struct with a nested `Code`, as Swift imports it.
public struct CXErrorCodeCallDirectoryManagerError: Error, Hashable, Sendable {
    public enum Code: Int, Sendable, Hashable {
        case unknown = 0
        case noExtensionFound = 1
        case loadingInterrupted = 2
        case entriesOutOfOrder = 3
        case duplicateEntries = 4
        case maximumEntriesExceeded = 5
        case extensionDisabled = 6
        /// iOS 10.3.
        case currentlyLoading = 7
        /// iOS 11.
        case unexpectedIncrementalRemoval = 8
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }

    public static var errorDomain: String { CXErrorDomainCallDirectoryManager }
    public static var unknown: Code { .unknown }
    public static var noExtensionFound: Code { .noExtensionFound }
    public static var loadingInterrupted: Code { .loadingInterrupted }
    public static var entriesOutOfOrder: Code { .entriesOutOfOrder }
    public static var duplicateEntries: Code { .duplicateEntries }
    public static var maximumEntriesExceeded: Code { .maximumEntriesExceeded }
    public static var extensionDisabled: Code { .extensionDisabled }
    public static var currentlyLoading: Code { .currentlyLoading }
    public static var unexpectedIncrementalRemoval: Code { .unexpectedIncrementalRemoval }
}

// MARK: - NSExtensionContext (Foundation on Apple platforms; not in swift-corelibs-foundation)

/// The part of `NSExtensionContext` a Call Directory extension uses.
open class NSExtensionContext: NSObject {
    /// Whether and how the request ended (the SDK has no such member).
    public enum _TestOutcome: Equatable {
        case pending
        case completed
        case cancelled(domain: String, code: Int, description: String)
    }

    public internal(set) var _testOutcome: _TestOutcome = .pending

    public override init() { super.init() }

    /// Ends the request with an error.
    open func cancelRequest(withError error: Error) {
        let nsError = error as NSError
        _testOutcome = .cancelled(domain: nsError.domain, code: nsError.code, description: nsError.localizedDescription)
    }
}

// MARK: - CXCallDirectoryExtensionContext.h

/// `CXCallDirectoryExtensionContextDelegate`.
public protocol CXCallDirectoryExtensionContextDelegate: NSObjectProtocol {
    func requestFailed(for extensionContext: CXCallDirectoryExtensionContext, withError error: Error)
}

/// `CXCallDirectoryExtensionContext`: what a Call Directory extension adds its entries to.
open class CXCallDirectoryExtensionContext: NSExtensionContext {
    /// The delegate told about failures (weak, as in the SDK).
    open weak var delegate: CXCallDirectoryExtensionContextDelegate?

    /// Whether this request adds to and removes from the entries of the last load (iOS 11).
    open private(set) var isIncremental: Bool

    /// What the code under test did, in order (the SDK has no such members).
    public enum _TestCall: Equatable {
        case block(CXCallDirectoryPhoneNumber)
        case identify(CXCallDirectoryPhoneNumber, String)
        case removeBlock(CXCallDirectoryPhoneNumber)
        case removeAllBlocks
        case removeIdentification(CXCallDirectoryPhoneNumber)
        case removeAllIdentifications
    }

    public private(set) var _testCalls: [_TestCall] = []
    /// The error the system reported to the delegate at completion, if any.
    public private(set) var _testReportedError: NSError?

    public init(_testIncremental isIncremental: Bool) {
        self.isIncremental = isIncremental
        super.init()
    }

    open func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        _testCalls.append(.block(phoneNumber))
    }

    open func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber, label: String) {
        _testCalls.append(.identify(phoneNumber, label))
    }

    /// Only in an incremental request.
    open func removeBlockingEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        _testCalls.append(.removeBlock(phoneNumber))
    }

    /// Only in an incremental request.
    open func removeAllBlockingEntries() {
        _testCalls.append(.removeAllBlocks)
    }

    /// Only in an incremental request.
    open func removeIdentificationEntry(withPhoneNumber phoneNumber: CXCallDirectoryPhoneNumber) {
        _testCalls.append(.removeIdentification(phoneNumber))
    }

    /// Only in an incremental request.
    open func removeAllIdentificationEntries() {
        _testCalls.append(.removeAllIdentifications)
    }

    /// Ends the request. Like the system, checks the entries first and reports a failure to the delegate.
    open func completeRequest(completionHandler completion: ((Bool) -> Void)? = nil) {
        if let code = _testValidate() {
            let error = NSError(domain: CXErrorDomainCallDirectoryManager, code: code.rawValue)
            _testReportedError = error
            delegate?.requestFailed(for: self, withError: error)
        }
        _testOutcome = .completed
        completion?(false)
    }

    /// The error CallKit would report for the recorded calls, if any.
    func _testValidate() -> CXErrorCodeCallDirectoryManagerError.Code? {
        var lastBlock: CXCallDirectoryPhoneNumber?
        var lastIdentification: CXCallDirectoryPhoneNumber?
        for call in _testCalls {
            switch call {
            case .block(let n):
                if let last = lastBlock, n <= last { return n == last ? .duplicateEntries : .entriesOutOfOrder }
                lastBlock = n
            case .identify(let n, _):
                if let last = lastIdentification, n <= last { return n == last ? .duplicateEntries : .entriesOutOfOrder }
                lastIdentification = n
            case .removeBlock, .removeAllBlocks, .removeIdentification, .removeAllIdentifications:
                if !isIncremental { return .unexpectedIncrementalRemoval }
            }
        }
        return nil
    }
}

// MARK: - CXCallDirectoryProvider.h

/// `CXCallDirectoryProvider`: the principal class of a Call Directory extension subclasses it.
open class CXCallDirectoryProvider: NSObject {
    public override init() { super.init() }

    open func beginRequest(with context: CXCallDirectoryExtensionContext) {}
}
