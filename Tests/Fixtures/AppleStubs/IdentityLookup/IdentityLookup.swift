// A stand-in for Apple's IdentityLookup framework (iOS 16 SDK), for type-checking and running the code that
// `smsfilter export-extension` generates on Linux, where there is no iOS SDK. It declares the API surface
// the generated code uses, with Apple's Swift names, signatures, enum cases and raw values
// (shared/DOMAIN.md §1: the ILMessageFilter*.h headers, dotnet/macios src/identitylookup.cs, Apple's docs).
//
// Members whose names start with `_test` do not exist in the SDK: the harness uses them to make requests
// the way iOS does (the SDK's request initialisers are unavailable). Generated code must never use them;
// the export tests grep for that.
//
// Built by the tests with `swiftc -emit-module -module-name IdentityLookup`.

import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - ILMessageFilterAction.h

/// `ILMessageFilterAction` (NS_ENUM NSInteger).
public enum ILMessageFilterAction: Int, @unchecked Sendable {
    /// Insufficient information to determine the action; the message is shown normally.
    case none = 0
    /// Allow the message to be shown normally.
    case allow = 1
    /// Filter the message as junk (iOS 11 name: `filter`).
    case junk = 2
    /// Filter the message as promotional (iOS 14).
    case promotion = 3
    /// Filter the message as transactional (iOS 14).
    case transaction = 4

    /// The iOS 11–13 name of ``junk`` (same raw value 2), deprecated in iOS 14.
    @available(*, deprecated, renamed: "junk")
    public static var filter: ILMessageFilterAction { .junk }
}

/// `ILMessageFilterSubAction` (NS_ENUM NSInteger, iOS 16).
public enum ILMessageFilterSubAction: Int, @unchecked Sendable {
    case none = 0

    case transactionalOthers = 10000
    case transactionalFinance = 10001
    case transactionalOrders = 10002
    case transactionalReminders = 10003
    case transactionalHealth = 10004
    case transactionalWeather = 10005
    case transactionalCarrier = 10006
    case transactionalRewards = 10007
    case transactionalPublicServices = 10008

    case promotionalOthers = 20000
    case promotionalOffers = 20001
    case promotionalCoupons = 20002
}

// MARK: - ILMessageFilterExtension.h, ILMessageFilterExtensionContext.h

/// `ILMessageFilterExtension`: the principal class of a message filter extension subclasses it.
open class ILMessageFilterExtension: NSObject {
    public override init() { super.init() }
}

/// `ILNetworkResponse` (what a deferral to the network returns).
open class ILNetworkResponse: NSObject, @unchecked Sendable {
    public let urlResponse: HTTPURLResponse
    public let data: Data

    init(urlResponse: HTTPURLResponse, data: Data) {
        self.urlResponse = urlResponse
        self.data = data
    }
}

/// `ILMessageFilterExtensionContext` (an `NSExtensionContext` in the SDK).
open class ILMessageFilterExtensionContext: NSObject {
    /// Whether the code under test deferred a request (the SDK has no such member).
    public private(set) var _testDeferrals = 0

    public init(_testContext: Void = ()) { super.init() }

    /// Defers the query to the server named by `ILMessageFilterExtensionNetworkURL` (at most once per request).
    open func deferQueryRequestToNetwork(completion: @escaping (ILNetworkResponse?, Error?) -> Void) {
        _testDeferrals += 1
        completion(nil, NSError(domain: ILMessageFilterErrorDomain, code: ILMessageFilterError.Code.invalidNetworkURL.rawValue))
    }
}

// MARK: - ILMessageFilterError.h

public let ILMessageFilterErrorDomain = "ILMessageFilterErrorDomain"

/// `ILMessageFilterError` (NS_ERROR_ENUM).
public struct ILMessageFilterError: Error, Sendable {
    public enum Code: Int, Sendable {
        case system = 1
        case invalidNetworkURL = 2
        case networkURLUnauthorized = 3
        case networkRequestFailed = 4
        case redundantNetworkDeferral = 5
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }
    public static var errorDomain: String { ILMessageFilterErrorDomain }
}

// MARK: - ILMessageFilterQueryRequest.h, ILMessageFilterQueryResponse.h, ILMessageFilterQueryHandling.h

/// `ILMessageFilterQueryRequest`: a message from an unknown sender (`init` is unavailable in the SDK).
open class ILMessageFilterQueryRequest: NSObject, @unchecked Sendable {
    /// The sender (phone number or email address, or an alphanumeric sender ID), if any.
    open private(set) var sender: String?
    /// The message body, if any.
    open private(set) var messageBody: String?
    /// The ISO 3166-2 country code of the receiving phone number (iOS 16).
    open private(set) var receiverISOCountryCode: String?

    public init(_testSender sender: String?, messageBody: String?, receiverISOCountryCode: String?) {
        self.sender = sender
        self.messageBody = messageBody
        self.receiverISOCountryCode = receiverISOCountryCode
        super.init()
    }
}

/// `ILMessageFilterQueryResponse`.
open class ILMessageFilterQueryResponse: NSObject {
    /// The action to take (default `.none`).
    open var action: ILMessageFilterAction = .none
    /// The sub-action (iOS 16, default `.none`).
    open var subAction: ILMessageFilterSubAction = .none

    public override init() { super.init() }
}

/// `ILMessageFilterQueryHandling`: the extension's principal class adopts it to answer message queries.
public protocol ILMessageFilterQueryHandling: NSObjectProtocol {
    func handle(
        _ queryRequest: ILMessageFilterQueryRequest,
        context: ILMessageFilterExtensionContext,
        completion: @escaping (ILMessageFilterQueryResponse) -> Void
    )
}

// MARK: - ILMessageFilterCapabilitiesQueryRequest.h, …Response.h, …Handling.h (iOS 16)

/// `ILMessageFilterCapabilitiesQueryRequest`: no public properties.
open class ILMessageFilterCapabilitiesQueryRequest: NSObject, @unchecked Sendable {
    public init(_testRequest: Void = ()) { super.init() }
}

/// `ILMessageFilterCapabilitiesQueryResponse`: the sub-actions the filter supports.
open class ILMessageFilterCapabilitiesQueryResponse: NSObject {
    /// Transactional sub-actions supported (Objective-C `NSArray<NSNumber *>`, copy).
    open var transactionalSubActions: [ILMessageFilterSubAction] = []
    /// Promotional sub-actions supported.
    open var promotionalSubActions: [ILMessageFilterSubAction] = []

    public override init() { super.init() }
}

/// `ILMessageFilterCapabilitiesQueryHandling`: adopted to tell iOS which sub-folders to show.
public protocol ILMessageFilterCapabilitiesQueryHandling: NSObjectProtocol {
    func handle(
        _ capabilitiesQueryRequest: ILMessageFilterCapabilitiesQueryRequest,
        context: ILMessageFilterExtensionContext,
        completion: @escaping (ILMessageFilterCapabilitiesQueryResponse) -> Void
    )
}
