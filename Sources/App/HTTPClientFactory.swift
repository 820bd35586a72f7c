import HTTPCore

/// The outgoing HTTPS client every part of the app uses: system trust store plus `SIWA_EXTRA_CA_FILE`.
enum HTTPClientFactory {
    static func make(configuration: Configuration) -> HTTPClient {
        HTTPClient(configuration: HTTPClient.Configuration(extraCAFile: configuration.extraCAFile))
    }
}
