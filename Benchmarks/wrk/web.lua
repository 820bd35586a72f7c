-- POST /login/siwa/handle, the web flow's last step, with the "state token" lines of TOKENS (siwa mint --web-states):
-- the state as the SIWA_STATE cookie and the token, whose nonce is that state's SHA-256, as the form. Each line once
-- (each nonce signs in once); when the file runs out it starts again and those requests are refused (401), which the
-- report counts as errors and WRAPPED in the output says.
package.path = os.getenv("WRK_DIR") .. "/?.lua;" .. package.path
require("report")

local lines = read_lines("TOKENS")
local next_index = 1

function request()
    local line = lines[next_index]
    next_index = next_index + 1
    if next_index > #lines then
        next_index = 1
        io.stderr:write("WRAPPED\n")
    end
    local state, token = line:match("^(%S+) (%S+)$")
    return wrk.format("POST", "/login/siwa/handle", {
        ["Content-Type"] = "application/x-www-form-urlencoded",
        ["Cookie"] = "SIWA_STATE=" .. state,
    }, "token=" .. token)
end

function done(summary, latency, requests)
    report(summary, latency)
end
