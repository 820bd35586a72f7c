import AppleID
import Foundation
import HTTPCore
import Web

/// `POST /api/apple/notifications`: Apple's server-to-server notifications for Sign in with Apple.
///
/// The payload JWT is verified like an identity token (RS256, Apple's keys, `iss`, `aud` one of our client ids)
/// with a fresh `iat`; its event is applied once per `jti`. Replays and events we do not act on are answered
/// 200 so Apple stops retrying; a bad signature or a foreign audience is 401.
struct AppleNotificationsController: RouteCollection {
    let services: Services

    func boot(routes: any RoutesBuilder) throws {
        routes.post("api", "apple", "notifications", use: receive)
    }

    struct Body: Decodable, Sendable {
        var payload: String
    }

    struct Answer: Content {
        var status: String
    }

    @Sendable func receive(_ req: Request) async throws -> Answer {
        let clientIDs = Set(services.configuration.iosClientIDs + [services.configuration.websiteClientID].compactMap { $0 })
        guard !clientIDs.isEmpty else {
            throw Abort(.serviceUnavailable, reason: "No client id is configured to receive Apple notifications.")
        }
        let body = try req.content.decode(Body.self, accepting: .json)
        let verifier = IdentityTokenVerifier(keys: services.appleKeys, clientIDs: clientIDs,
                                             maximumTokenAge: ServerNotification.maximumAge, clock: services.clock)
        // The payload is refused as an identity token is (401, 503 without keys), `exp` required too: Apple's
        // payloads carry one (`iat` + 24 h). Found by a review: one without it was applied. A payload Apple signed
        // whose claims are not a notification is malformed input (400).
        let jwt: VerifiedJWT
        do {
            jwt = try await verifier.verifyJWT(body.payload)
        } catch let error as AppleIDError {
            req.logger.notice("Apple notification refused", metadata: ["reason": "\(error)"])
            throw Abort(error.httpStatus, reason: error.httpStatus == .serviceUnavailable
                        ? error.clientMessage : "Invalid notification payload, signature or audience",
                        headers: error.httpHeaders)
        }
        let notification: ServerNotification
        do {
            notification = try ServerNotification(jwt)
        } catch let error as AppleIDError {
            req.logger.notice("Apple notification refused", metadata: ["reason": "\(error)"])
            throw Abort(.badRequest, reason: "The notification's claims are not an Apple notification")
        }
        let outcome = try await services.notifications.apply(notification)
        req.logger.info("Apple notification", metadata: [
            "type": "\(LogEscaping.escape("\(notification.type)"))", "outcome": "\(outcome)",
        ])
        if outcome == .unknownUser, notification.type == .accountDelete || notification.type == .consentRevoked {
            // After an app transfer Apple names the receiving team's `sub`, which a user not yet imported does not
            // hold: the event is kept, and applied once the import (or a sign-in by `transfer_sub`) gives a user that
            // `sub` (README "Moving the app to another team").
            req.logger.notice("""
                Apple notification \(notification.type == .accountDelete ? "account-delete" : "consent-revoked") \
                for a sub no user holds: kept for \(Int(AppleNotificationRepository.heldLifetime / 86_400)) days, and \
                applied if an app transfer's import or a sign-in gives a user this sub
                """, metadata: ["sub": "\(LogEscaping.escape(notification.subject))"])
        }
        return Answer(status: "\(outcome)")
    }
}
