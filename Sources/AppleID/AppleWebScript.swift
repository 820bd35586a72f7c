/// Apple's Sign in with Apple JS (`appleid.auth.js`): the button script a web page loads ("Configuring your webpage
/// for Sign in with Apple"). Apple serves it from its CDN; the local stand-in serves its copy at the same path.
public enum AppleWebScript {
    /// The script's path, on Apple's CDN and on the stand-in alike.
    public static let path = "/appleauth/static/jsapi/appleid/1/en_US/appleid.auth.js"
    /// Apple's CDN, which serves the script in production.
    public static let cdnOrigin = "https://appleid.cdn-apple.com"
}
