-- GET of the URL's path; only the report.
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

function done(summary, latency, requests)
    report(summary, latency)
end
