-- Shared by every wrk script: one machine-readable line with rate, latency percentiles (microseconds) and errors.
-- RESULT <requests> <seconds> <requests/s> <p50> <p99> <p99.9> <non-2xx/3xx> <socket errors>
function report(summary, latency)
    local seconds = summary.duration / 1e6
    local e = summary.errors
    io.write(string.format("RESULT %d %.2f %.1f %d %d %d %d %d\n",
        summary.requests, seconds, summary.requests / seconds,
        latency:percentile(50), latency:percentile(99), latency:percentile(99.9),
        e.status, e.connect + e.read + e.write + e.timeout))
end

-- The lines of the file named by the environment variable `name`.
function read_lines(name)
    local path = os.getenv(name)
    assert(path, name .. " not set")
    local lines = {}
    for line in io.lines(path) do
        if #line > 0 then lines[#lines + 1] = line end
    end
    assert(#lines > 0, path .. " is empty")
    return lines
end
