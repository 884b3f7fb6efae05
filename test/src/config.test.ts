import t from 'tap'
import { ConfigError, loadConfig } from '../../src/config.js'

t.test('defaults', async (t) => {
  t.strictSame(loadConfig({}), {
    port: 3000,
    host: '127.0.0.1',
    databaseUrl: 'data/catalogue.sqlite',
    timeZone: 'UTC',
    apiKeys: [],
    logLevel: 'info',
    corsOrigins: [],
    rateLimitMax: 1000,
    rateLimitWindow: 60,
    shutdownDrainSeconds: 5,
    shutdownGraceSeconds: 10,
    streamStallSeconds: 10,
    streamStallContendedSeconds: 2,
    streamsPerClient: 2,
    heapGrowingPercent: 100,
    responseCacheMegabytes: 32
  })
})

t.test('every variable read', async (t) => {
  t.strictSame(loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: '/tmp/x.sqlite',
    TIME_ZONE: 'Europe/Paris',
    API_KEYS: 'first-key-0123456789, second-key-0123456789',
    LOG_LEVEL: 'warn',
    CORS_ORIGINS: 'https://app.example.com, http://localhost:5173',
    RATE_LIMIT_MAX: '120',
    RATE_LIMIT_WINDOW: '10',
    REDIS_URL: 'redis://127.0.0.1:6379',
    SHUTDOWN_DRAIN_SECONDS: '0',
    SHUTDOWN_GRACE_SECONDS: '30',
    STREAM_STALL_SECONDS: '60',
    STREAM_STALL_CONTENDED_SECONDS: '5',
    STREAMS_PER_CLIENT: '0',
    RESPONSE_CACHE_MB: '0',
    HEAP_GROWING_PERCENT: '0',
    UPSTREAM_URL: 'http://127.0.0.1:4010',
    UPSTREAM_TOKEN: 'upstream-secret',
    GATEWAY_CONFIG: 'gateway.json'
  }), {
    port: 8080,
    host: '0.0.0.0',
    databaseUrl: '/tmp/x.sqlite',
    timeZone: 'Europe/Paris',
    apiKeys: ['first-key-0123456789', 'second-key-0123456789'],
    logLevel: 'warn',
    corsOrigins: ['https://app.example.com', 'http://localhost:5173'],
    rateLimitMax: 120,
    rateLimitWindow: 10,
    redisUrl: 'redis://127.0.0.1:6379',
    shutdownDrainSeconds: 0,
    shutdownGraceSeconds: 30,
    streamStallSeconds: 60,
    streamStallContendedSeconds: 5,
    streamsPerClient: 0,
    heapGrowingPercent: 0,
    responseCacheMegabytes: 0,
    upstreamUrl: 'http://127.0.0.1:4010',
    upstreamToken: 'upstream-secret',
    declarationFile: 'gateway.json'
  })
})

t.test('GATEWAY_CONFIG: a file to serve, or unset or blank (the demo)', async (t) => {
  t.notOk('declarationFile' in loadConfig({ GATEWAY_CONFIG: '  ' }))
  t.equal(loadConfig({ GATEWAY_CONFIG: 'examples/demo.gateway.json' }).declarationFile, 'examples/demo.gateway.json')
})

t.test('UPSTREAM_URL: an origin, or unset (no products); UPSTREAM_TOKEN only with it, never repeated in an error', async (t) => {
  t.notOk('upstreamUrl' in loadConfig({ UPSTREAM_URL: ' ' }))
  t.strictSame(loadConfig({ UPSTREAM_URL: 'https://api.example.com' }).upstreamUrl, 'https://api.example.com')
  t.notOk('upstreamToken' in loadConfig({ UPSTREAM_URL: 'https://api.example.com', UPSTREAM_TOKEN: '' }))
  t.throws(() => loadConfig({ UPSTREAM_URL: 'https://api.example.com/v1' }), new ConfigError('UPSTREAM_URL must be an origin such as "http://127.0.0.1:4010" (scheme, host and port, no path); got "https://api.example.com/v1".'))
  t.throws(() => loadConfig({ UPSTREAM_TOKEN: 'hunter2' }), { message: /^UPSTREAM_TOKEN is set without UPSTREAM_URL(?!.*hunter2)/ })
})

t.test('API_KEYS: a key alone, or followed by its scopes after a colon, joined by +', async (t) => {
  t.strictSame(loadConfig({ API_KEYS: 'full-key-0123456789, reader-key-0123456789:invoices:read+ledger:read,one-scope-0123456789:books' }).apiKeys, [
    'full-key-0123456789',
    { key: 'reader-key-0123456789', scopes: ['invoices:read', 'ledger:read'] },
    { key: 'one-scope-0123456789', scopes: ['books'] }
  ])
})

t.test('API_KEYS: a malformed scope list is refused naming the key by its position, never its text', async (t) => {
  for (const API_KEYS of ['good-key-0123456789,secret-key-0123456789:', 'good-key-0123456789,secret-key-0123456789:a++b', 'good-key-0123456789,secret-key-0123456789:a b']) {
    t.throws(() => loadConfig({ API_KEYS }), { message: /^API_KEYS: key 2 lists a malformed scope: write "<key>:<scope>\+<scope>"(?!.*secret-key)/ }, API_KEYS)
  }
  t.throws(() => loadConfig({ API_KEYS: 'short:invoices:read' }), { message: /^API_KEYS must be .* at least 16 characters/ }, 'the key before the colon is the key')
  t.throws(() => loadConfig({ API_KEYS: 'one-key-0123456789,secret-key-0123456789:a,secret-key-0123456789:b' }), { message: /^API_KEYS: key 3 repeats key 2: list each key once, with all its scopes\.$/ })
})

t.test('API_KEYS as a JSON array: each key with its scopes and claims, read as given', async (t) => {
  const entries = [
    { key: 'full-key-0123456789' },
    { key: 'reader-key-0123456789', scopes: ['invoices:read', 'ledger:read'] },
    { key: 'tenant-key-0123456789', scopes: ['books'], claims: { org_id: 'acme', level: 3, admin: false } },
    { key: 'no-scope-key-0123456789', scopes: [] },
    { key: 'with:colon-key-0123456789', claims: {} }
  ]
  const { apiKeys } = loadConfig({ API_KEYS: `\n  ${JSON.stringify(entries, null, 2)}\n` })
  t.strictSame(apiKeys, entries)
  t.notOk('scopes' in (apiKeys[0] as object), 'scopes absent stays absent: every scope')
  t.notOk('claims' in (apiKeys[1] as object), 'claims absent stays absent')
  t.strictSame((apiKeys[3] as { scopes: unknown }).scopes, [], 'an empty list is no scope, not every scope')
  t.strictSame(loadConfig({ API_KEYS: '[]' }).apiKeys, [], 'an empty array: no keys')
})

t.test('API_KEYS as a JSON array: each refusal names the key by its position, never its text', async (t) => {
  const SECRET = 'secret-key-0123456789'
  const GOOD = '{ "key": "good-key-0123456789" }'
  const OBJECT = /^API_KEYS: key 2 must be an object with "key" and optionally "scopes" and "claims", nothing else\.$/
  const SCOPE = /^API_KEYS: key 2 lists a malformed scope: write "scopes" as an array of them, each scope letters, digits and _ \. : \/ - only, or leave it out for every scope\.$/
  const CLAIMS = /^API_KEYS: key 2: "claims" must be an object whose values are each text, a number or true or false, such as \{ "org_id": "acme" \}\.$/
  const cases: Array<[string, string, RegExp]> = [
    ['invalid JSON', `[${GOOD}, { "key": "${SECRET}", }]`, /^API_KEYS is not valid JSON: write keys separated by commas, or a JSON array of \{ "key": \.\.\., "scopes": \[\.\.\.\], "claims": \{\.\.\.\} \}\.$/],
    ['unclosed', `[${GOOD}, { "key": "${SECRET}" }`, /^API_KEYS is not valid JSON: /],
    ['an object, not an array', '{}', /^API_KEYS must be a JSON array of \{ "key": \.\.\., "scopes": \[\.\.\.\], "claims": \{\.\.\.\} \}\.$/],
    ['one entry without its array', `{ "key": "${SECRET}", "claims": { "org_id": "acme" } }`, /^API_KEYS must be a JSON array of /],
    ['a key as text', `[${GOOD}, "${SECRET}"]`, OBJECT],
    ['a key in an array', `[${GOOD}, ["${SECRET}"]]`, OBJECT],
    ['null', `[${GOOD}, null]`, OBJECT],
    ['an unknown property', `[${GOOD}, { "key": "${SECRET}", "scope": ["books"] }]`, OBJECT],
    ['no key', `[${GOOD}, { "scopes": ["books"] }]`, OBJECT],
    ['a key that is not text', `[${GOOD}, { "key": 12345678901234567890 }]`, OBJECT],
    ['a short key', `[${GOOD}, { "key": "secret-key" }]`, /^API_KEYS must be .* at least 16 characters each, without whitespace \(or a JSON array of them\)\.$/],
    ['a key with whitespace', `[${GOOD}, { "key": "secret key 0123456789" }]`, /^API_KEYS must be .* without whitespace/],
    ['a key with a tab', `[${GOOD}, { "key": "secret-key-0123456789\\t" }]`, /^API_KEYS must be .* without whitespace/],
    ['a repeated key', `[{ "key": "${SECRET}" }, { "key": "${SECRET}", "scopes": ["books"] }]`, /^API_KEYS: key 2 repeats key 1: list each key once, with all its scopes\.$/],
    ['scopes as text', `[${GOOD}, { "key": "${SECRET}", "scopes": "books" }]`, SCOPE],
    ['a scope with a space', `[${GOOD}, { "key": "${SECRET}", "scopes": ["books", "invoices read"] }]`, SCOPE],
    ['an empty scope', `[${GOOD}, { "key": "${SECRET}", "scopes": [""] }]`, SCOPE],
    ['a scope that is not text', `[${GOOD}, { "key": "${SECRET}", "scopes": [1] }]`, SCOPE],
    ['claims as text', `[${GOOD}, { "key": "${SECRET}", "claims": "acme" }]`, CLAIMS],
    ['claims as an array', `[${GOOD}, { "key": "${SECRET}", "claims": ["acme"] }]`, CLAIMS],
    ['claims null', `[${GOOD}, { "key": "${SECRET}", "claims": null }]`, CLAIMS],
    ['a claim holding an object', `[${GOOD}, { "key": "${SECRET}", "claims": { "org": { "id": 1 } } }]`, CLAIMS],
    ['a claim holding an array', `[${GOOD}, { "key": "${SECRET}", "claims": { "org_id": ["acme"] } }]`, CLAIMS],
    ['a claim holding null', `[${GOOD}, { "key": "${SECRET}", "claims": { "org_id": null } }]`, CLAIMS],
    ['a claim past every number (1e999 reads as Infinity)', `[${GOOD}, { "key": "${SECRET}", "claims": { "level": 1e999 } }]`, CLAIMS],
    ['an empty claim name', `[${GOOD}, { "key": "${SECRET}", "claims": { "": "acme" } }]`, CLAIMS]
  ]
  for (const [what, API_KEYS, message] of cases) {
    let error: unknown
    try {
      loadConfig({ API_KEYS })
    } catch (caught) {
      error = caught
    }
    t.type(error, ConfigError, what)
    t.match((error as Error | undefined)?.message, message, what)
    t.notMatch((error as Error | undefined)?.message, /secret/, `${what}: the key's text is not repeated`)
  }
})

t.test('an empty API_KEYS is unset', async (t) => {
  t.strictSame(loadConfig({ API_KEYS: ' ' }).apiKeys, [])
})

t.test('an empty CORS_ORIGINS is unset: CORS off', async (t) => {
  t.strictSame(loadConfig({ CORS_ORIGINS: ' ' }).corsOrigins, [])
})

t.test('RATE_LIMIT_MAX=0 is accepted: rate limiting off', async (t) => {
  t.equal(loadConfig({ RATE_LIMIT_MAX: '0' }).rateLimitMax, 0)
})

t.test('DATABASE_URL: a SQLite path, or a PostgreSQL URL with its schema', async (t) => {
  t.equal(loadConfig({ DATABASE_URL: 'postgres://u:secret@db.example:5432/app?schema=tenant_1' }).databaseUrl, 'postgres://u:secret@db.example:5432/app?schema=tenant_1')
  t.equal(loadConfig({ DATABASE_URL: 'postgresql://db.example/app' }).databaseUrl, 'postgresql://db.example/app')
})

t.test('REDIS_URL: unset or empty keeps shared state in process; a password is never repeated in an error', async (t) => {
  t.notOk('redisUrl' in loadConfig({}))
  t.notOk('redisUrl' in loadConfig({ REDIS_URL: ' ' }))
  t.equal(loadConfig({ REDIS_URL: 'rediss://:pw@cache.example:6380/2?keyPrefix=prod:' }).redisUrl, 'rediss://:pw@cache.example:6380/2?keyPrefix=prod:')
  t.throws(() => loadConfig({ REDIS_URL: 'http://:hunter2@cache.example' }), { message: /^(?!.*hunter2)/ })
})

t.test('a bad value is refused with one line naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT must be a port number from 0 to 65535; got "abc"\.$/],
    [{ PORT: '70000' }, /^PORT /],
    [{ PORT: '-1' }, /^PORT /],
    [{ TIME_ZONE: 'Mars/Olympus' }, /^TIME_ZONE must be an IANA time zone .*"Mars\/Olympus"/],
    [{ API_KEYS: 'short' }, /^API_KEYS must be .* at least 16 characters/],
    [{ API_KEYS: 'a-long-enough-key-123,' }, /^API_KEYS /],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"\.$/],
    [{ HOST: ' ' }, /^HOST must not be empty\.$/],
    [{ DATABASE_URL: '' }, /^DATABASE_URL must not be empty\.$/],
    [{ CORS_ORIGINS: 'app.example.com' }, /^CORS_ORIGINS must be a comma-separated list of origins such as "https:\/\/app\.example\.com" \(scheme, host and port, no path\); got "app\.example\.com"\.$/],
    [{ CORS_ORIGINS: 'https://app.example.com/' }, /^CORS_ORIGINS .*got "https:\/\/app\.example\.com\/"/],
    [{ CORS_ORIGINS: 'https://App.example.com' }, /^CORS_ORIGINS /],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /^CORS_ORIGINS /],
    [{ CORS_ORIGINS: '*' }, /^CORS_ORIGINS .*got "\*"/],
    [{ CORS_ORIGINS: 'https://app.example.com,' }, /^CORS_ORIGINS .*got ""/],
    [{ RATE_LIMIT_MAX: 'lots' }, /^RATE_LIMIT_MAX must be a whole number of requests \(0 turns rate limiting off\); got "lots"\.$/],
    [{ RATE_LIMIT_MAX: '-1' }, /^RATE_LIMIT_MAX /],
    [{ RATE_LIMIT_MAX: '1e3' }, /^RATE_LIMIT_MAX /],
    [{ RATE_LIMIT_MAX: '99999999999999999999' }, /^RATE_LIMIT_MAX /],
    [{ RATE_LIMIT_WINDOW: '0' }, /^RATE_LIMIT_WINDOW must be a whole number of seconds from 1; got "0"\.$/],
    [{ RATE_LIMIT_WINDOW: '1.5' }, /^RATE_LIMIT_WINDOW /],
    [{ SHUTDOWN_DRAIN_SECONDS: '-1' }, /^SHUTDOWN_DRAIN_SECONDS must be a whole number of seconds \(0: close at once\); got "-1"\.$/],
    [{ SHUTDOWN_GRACE_SECONDS: '0' }, /^SHUTDOWN_GRACE_SECONDS must be a whole number of seconds from 1; got "0"\.$/],
    [{ STREAM_STALL_SECONDS: 'ten' }, /^STREAM_STALL_SECONDS must be a whole number of seconds from 1; got "ten"\.$/],
    [{ STREAM_STALL_CONTENDED_SECONDS: '0' }, /^STREAM_STALL_CONTENDED_SECONDS must be a whole number of seconds from 1; got "0"\.$/],
    [{ STREAMS_PER_CLIENT: 'two' }, /^STREAMS_PER_CLIENT must be a whole number of lists \(0: no bound\); got "two"\.$/],
    [{ STREAMS_PER_CLIENT: '-1' }, /^STREAMS_PER_CLIENT /],
    [{ RESPONSE_CACHE_MB: '-1' }, /^RESPONSE_CACHE_MB must be a whole number of mebibytes up to 65536 \(0 keeps no answers\); got "-1"\.$/],
    [{ RESPONSE_CACHE_MB: '65537' }, /^RESPONSE_CACHE_MB .*got "65537"\.$/],
    [{ RESPONSE_CACHE_MB: '0.5' }, /^RESPONSE_CACHE_MB /],
    [{ HEAP_GROWING_PERCENT: 'half' }, /^HEAP_GROWING_PERCENT must be a whole number of percent up to 1000 \(0: V8's own rule\); got "half"\.$/],
    [{ HEAP_GROWING_PERCENT: '1001' }, /^HEAP_GROWING_PERCENT /],
    [{ DATABASE_URL: 'postgres://db.example/app?schema=Tenant' }, /^DATABASE_URL is not a usable PostgreSQL URL: schema must be a lower-case name .*got "Tenant"\.$/],
    [{ DATABASE_URL: 'postgresql://[db' }, /^DATABASE_URL is not a usable PostgreSQL URL: it is not a URL/],
    [{ REDIS_URL: '127.0.0.1:6379' }, /^REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL such as "redis:\/\/127\.0\.0\.1:6379"\.$/],
    [{ REDIS_URL: 'redis://[bad' }, /^REDIS_URL /]
  ]
  for (const [env, message] of cases) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env))
    try { loadConfig(env) } catch (error) { t.match((error as Error).message, message) }
  }
})

t.test('OAUTH_ISSUERS: issuer URLs separated by commas, each with every asymmetric algorithm', async (t) => {
  const { identity } = loadConfig({ OAUTH_ISSUERS: 'https://id.example.com/realms/a, http://127.0.0.1:8080', OAUTH_AUDIENCE: 'https://gateway.example.com' })
  t.strictSame(identity, {
    issuers: [
      { issuer: 'https://id.example.com/realms/a', algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] },
      { issuer: 'http://127.0.0.1:8080', algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] }
    ],
    audience: 'https://gateway.example.com',
    clockToleranceSeconds: 30
  })
})

t.test('OAUTH_ISSUERS: a JSON array naming a key set and algorithms; the clock tolerance', async (t) => {
  const { identity } = loadConfig({
    OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","jwksUri":"https://id.example.com/keys","algorithms":["ES256"]},{"issuer":"http://localhost:9000"}]',
    OAUTH_AUDIENCE: 'https://gateway.example.com/mcp',
    OAUTH_CLOCK_TOLERANCE_SECONDS: '0'
  })
  t.strictSame(identity?.issuers[0], { issuer: 'https://id.example.com', jwksUri: 'https://id.example.com/keys', algorithms: ['ES256'] })
  t.equal(identity?.issuers[1].issuer, 'http://localhost:9000')
  t.equal(identity?.clockToleranceSeconds, 0)
  t.equal(loadConfig({ OAUTH_ISSUERS: '[]' }).identity, undefined, 'an empty list: keys only')
  t.equal(loadConfig({ OAUTH_ISSUERS: ' ' }).identity, undefined, 'blank: keys only')
})

t.test('OAUTH_*: each mistake refused with one line naming the variable', async (t) => {
  const audience = { OAUTH_AUDIENCE: 'https://gateway.example.com' }
  const cases: Array<[Record<string, string>, string]> = [
    [{ OAUTH_AUDIENCE: 'https://gateway.example.com' }, 'OAUTH_AUDIENCE is set without OAUTH_ISSUERS: name the identity providers whose tokens are accepted too.'],
    [{ OAUTH_ISSUERS: 'https://id.example.com' }, 'OAUTH_AUDIENCE must be this gateway\'s resource URL, such as "https://gateway.example.com", which tokens name as their audience; got "".'],
    [{ OAUTH_ISSUERS: 'https://id.example.com', OAUTH_AUDIENCE: 'gateway' }, 'OAUTH_AUDIENCE must be this gateway\'s resource URL, such as "https://gateway.example.com", which tokens name as their audience; got "gateway".'],
    [{ OAUTH_ISSUERS: 'http://id.example.com', ...audience }, 'OAUTH_ISSUERS: issuer 1 must be an https URL (http only on the loopback); got "http://id.example.com".'],
    [{ OAUTH_ISSUERS: 'https://id.example.com,', ...audience }, 'OAUTH_ISSUERS: issuer 2 must be an https URL (http only on the loopback); got "".'],
    [{ OAUTH_ISSUERS: '[{"issuer":', ...audience }, 'OAUTH_ISSUERS is not valid JSON: write issuer URLs separated by commas, or a JSON array of { "issuer": ..., "jwksUri": ..., "algorithms": [...] }.'],
    [{ OAUTH_ISSUERS: '["https://id.example.com"]', ...audience }, 'OAUTH_ISSUERS: issuer 1 must be an object with "issuer" and optionally "jwksUri" and "algorithms", nothing else.'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","audience":"x"}]', ...audience }, 'OAUTH_ISSUERS: issuer 1 must be an object with "issuer" and optionally "jwksUri" and "algorithms", nothing else.'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","jwksUri":"ftp://id.example.com/keys"}]', ...audience }, 'OAUTH_ISSUERS: issuer 1: "jwksUri" must be an https URL (http only on the loopback); got "ftp://id.example.com/keys".'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","jwksUri":7}]', ...audience }, 'OAUTH_ISSUERS: issuer 1: "jwksUri" must be an https URL (http only on the loopback); got 7.'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","algorithms":["HS256"]}]', ...audience }, 'OAUTH_ISSUERS: issuer 1: "algorithms" must list some of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (asymmetric ones only).'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","algorithms":[]}]', ...audience }, 'OAUTH_ISSUERS: issuer 1: "algorithms" must list some of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (asymmetric ones only).'],
    [{ OAUTH_ISSUERS: '[{"issuer":"https://id.example.com","algorithms":"RS256"}]', ...audience }, 'OAUTH_ISSUERS: issuer 1: "algorithms" must list some of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA (asymmetric ones only).'],
    [{ OAUTH_ISSUERS: 'https://id.example.com', ...audience, OAUTH_CLOCK_TOLERANCE_SECONDS: '301' }, 'OAUTH_CLOCK_TOLERANCE_SECONDS must be a whole number of seconds up to 300; got "301".']
  ]
  for (const [env, message] of cases) t.throws(() => loadConfig(env), new ConfigError(message), JSON.stringify(env))
})
