/**
 * The Lua scripts of the Redis store (core/store/redis.ts): every multi-step operation is
 * one script, so Redis runs it atomically, whichever gw instance sent it. Registered with
 * ioredis `defineCommand` (EVALSHA, falling back to EVAL after a Redis restart flushed the
 * script cache).
 *
 * Time: an empty `now` argument means "Redis server time" (`TIME`), so instances with
 * skewed clocks agree on windows and hold expiry. Redis 7 replicates script effects, so
 * reading TIME before writing is allowed.
 *
 * Numbers leave a script as strings (`%.17g`): Redis would truncate a Lua number to an
 * integer on the way out, and Lua's own tostring keeps only 14 digits.
 */

/** Shared helpers, prepended to every script that needs them. */
const LIB = `
local function fmt(x) return string.format('%.17g', x) end
local function clock(arg)
  if arg ~= nil and arg ~= '' then return tonumber(arg) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * Window helpers. A window is a ZSET of members '<time>:<uid>:<amount>' scored by time, plus
 * a STRING with the sum of the amounts, kept in step by every script that changes the ZSET
 * (rebuilt from the members if it is ever missing). Entries at or before now - windowMs leave.
 */
const WINDOW = `
local function amount(m) return tonumber(string.match(m, ':([^:]*)$')) end
-- drops entries at or before cutoff; returns the live total and whether anything changed
local function expire(w, wt, cutoff)
  local n = redis.call('ZCARD', w)
  if n == 0 then
    redis.call('DEL', wt)
    return 0, false
  end
  local raw = redis.call('GET', wt)
  local total = 0
  if raw then total = tonumber(raw) else
    for _, m in ipairs(redis.call('ZRANGE', w, 0, -1)) do total = total + amount(m) end
  end
  local old = redis.call('ZRANGEBYSCORE', w, '-inf', fmt(cutoff))
  if #old == n then
    redis.call('DEL', w, wt)
    return 0, false
  end
  if #old > 0 then
    for _, m in ipairs(old) do total = total - amount(m) end
    redis.call('ZREMRANGEBYSCORE', w, '-inf', fmt(cutoff))
    return total, true
  end
  return total, raw == false
end
-- records an entry (amount ~= 0) and keeps both keys alive for one window past now
local function record(w, wt, total, changed, now, win, uid, cost)
  if cost ~= 0 then
    redis.call('ZADD', w, fmt(now), fmt(now) .. ':' .. uid .. ':' .. fmt(cost))
    total = total + cost
    changed = true
  end
  if changed then
    redis.call('SET', wt, fmt(total), 'PX', math.ceil(win))
    redis.call('PEXPIRE', w, math.ceil(win))
  end
end
`;

/**
 * windowAdmit. KEYS: window, total. ARGV: limit, windowMs, cost, pending, now|'', uid.
 * Returns {admitted 0|1, total, retryAfterMs} (total and retry as strings).
 */
export const WINDOW_ADMIT = `${LIB}${WINDOW}
local limit, win, cost, pending = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = clock(ARGV[5])
local total, changed = expire(KEYS[1], KEYS[2], now - win)
if total + pending >= limit then
  record(KEYS[1], KEYS[2], total, changed, now, win, ARGV[6], 0)
  local rest, retry = total, win
  local items = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
  for i = 1, #items, 2 do
    rest = rest - amount(items[i])
    if rest + pending < limit then
      retry = math.max(1, tonumber(items[i + 1]) + win - now)
      break
    end
  end
  return {0, fmt(total), fmt(retry)}
end
record(KEYS[1], KEYS[2], total, changed, now, win, ARGV[6], cost)
return {1, fmt(total), '0'}
`;

/** windowAdd. KEYS: window, total. ARGV: amount, windowMs, now|'', uid. */
export const WINDOW_ADD = `${LIB}${WINDOW}
local cost, win = tonumber(ARGV[1]), tonumber(ARGV[2])
local now = clock(ARGV[3])
local total, changed = expire(KEYS[1], KEYS[2], now - win)
record(KEYS[1], KEYS[2], total, changed, now, win, ARGV[4], cost)
return 1
`;

/**
 * Hold helpers. Holds on a key: a ZSET id → expiry (server ms) and a HASH id →
 * '<amount>|<owner>'. A hold is live while unexpired and while its owner (a gw instance) is
 * alive: each instance keeps a liveness key '<livePrefix><owner>' (PX, refreshed by a
 * heartbeat and by its own hold calls) and deletes it on close, so the holds of a crashed or
 * stopped instance are dropped within the liveness TTL instead of lasting until their own TTL.
 */
const HOLDS = `
local function live(hx, ha, now, except, livePrefix)
  local expired = redis.call('ZRANGEBYSCORE', hx, '-inf', fmt(now))
  for _, id in ipairs(expired) do redis.call('HDEL', ha, id) end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', hx, '-inf', fmt(now)) end
  local all = redis.call('HGETALL', ha)
  local alive = {}
  local sum = 0
  for i = 1, #all, 2 do
    local id, v = all[i], all[i + 1]
    local sep = string.find(v, '|', 1, true)
    local owner = string.sub(v, sep + 1)
    local ok = alive[owner]
    if ok == nil then
      ok = owner == '' or redis.call('EXISTS', livePrefix .. owner) == 1
      alive[owner] = ok
    end
    if not ok then
      redis.call('HDEL', ha, id)
      redis.call('ZREM', hx, id)
    elseif id ~= except then
      sum = sum + tonumber(string.sub(v, 1, sep - 1))
    end
  end
  return sum
end
-- both keys expire with their last hold
local function keepAlive(hx, ha)
  local last = redis.call('ZRANGE', hx, -1, -1, 'WITHSCORES')
  if #last == 0 then
    redis.call('DEL', hx, ha)
  else
    local at = fmt(math.ceil(tonumber(last[2])))
    redis.call('PEXPIREAT', hx, at)
    redis.call('PEXPIREAT', ha, at)
  end
end
`;

/**
 * hold. KEYS: counter hash, holds zset, holds hash.
 * ARGV: id, amount, field, limit, ttlMs, owner, livePrefix, livenessTtlMs.
 * Returns {admitted 0|1, value, held}.
 */
export const HOLD = `${LIB}${HOLDS}
local id, amt, field, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local owner, livePrefix = ARGV[6], ARGV[7]
if owner ~= '' then redis.call('SET', livePrefix .. owner, '1', 'PX', ARGV[8]) end
local now = clock('')
local held = live(KEYS[2], KEYS[3], now, id, livePrefix)
local value = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if value + held < limit then
  redis.call('ZADD', KEYS[2], fmt(now + ttl), id)
  redis.call('HSET', KEYS[3], id, ARGV[2] .. '|' .. owner)
  keepAlive(KEYS[2], KEYS[3])
  return {1, fmt(value), fmt(held)}
end
keepAlive(KEYS[2], KEYS[3])
return {0, fmt(value), fmt(held)}
`;

/** held. KEYS: holds zset, holds hash. ARGV: livePrefix. Returns the live sum (string). */
export const HELD = `${LIB}${HOLDS}
local sum = live(KEYS[1], KEYS[2], clock(''), nil, ARGV[1])
keepAlive(KEYS[1], KEYS[2])
return fmt(sum)
`;

/** release. KEYS: holds zset, holds hash. ARGV: id. */
export const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`;

/** incr. KEYS: counter hash. ARGV: field, delta, field, delta… Returns HGETALL after. */
export const INCR = `
for i = 1, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
return redis.call('HGETALL', KEYS[1])
`;

/**
 * settle. KEYS: counter hash, holds zset, holds hash. ARGV: id, field, delta, field, delta…
 * Adds the deltas and drops the hold in one step. Returns HGETALL after.
 */
export const SETTLE = `
for i = 2, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
return redis.call('HGETALL', KEYS[1])
`;

/**
 * bucketIncr. KEYS: the bucket's hash. ARGV: expireAtMs, series, field, delta, field, delta…
 * Hash fields are '<field>\0<series>' (field names have no NUL; series may), incremented
 * with HINCRBYFLOAT; the hash expires with its bucket's retention.
 */
export const BUCKET_INCR = `
for i = 3, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i] .. '\\0' .. ARGV[2], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1
`;

/**
 * ringPush. KEYS: the ring's zset, its sequence counter. ARGV: value, maxLen.
 * Members are '<seq>:<value>' scored by seq (unique even for equal values); the oldest
 * beyond maxLen are dropped. Returns the seq.
 */
export const RING_PUSH = `
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], seq, seq .. ':' .. ARGV[1])
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[2])
if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
return seq
`;

/**
 * Reads values and counters for `entries`. KEYS: the keys SCAN found.
 * Returns one {kind, payload} per key: 's' + string, 'h' + flat hash, or 'n' (gone).
 */
export const READ_MANY = `
local out = {}
for i, k in ipairs(KEYS) do
  local t = redis.call('TYPE', k).ok
  if t == 'string' then out[i] = {'s', redis.call('GET', k)}
  elseif t == 'hash' then out[i] = {'h', redis.call('HGETALL', k)}
  else out[i] = {'n'} end
end
return out
`;

/** Lock release: deletes the lock only if it still holds our token. KEYS: lock. ARGV: token. */
export const UNLOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** Lock renewal: extends the lock only if it still holds our token. KEYS: lock. ARGV: token, ttlMs. */
export const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;

/** Every script with its key count, as ioredis `defineCommand` takes them. */
export const SCRIPTS = {
  gwWindowAdmit: { numberOfKeys: 2, lua: WINDOW_ADMIT },
  gwWindowAdd: { numberOfKeys: 2, lua: WINDOW_ADD },
  gwHold: { numberOfKeys: 3, lua: HOLD },
  gwHeld: { numberOfKeys: 2, lua: HELD },
  gwRelease: { numberOfKeys: 2, lua: RELEASE },
  gwIncr: { numberOfKeys: 1, lua: INCR },
  gwSettle: { numberOfKeys: 3, lua: SETTLE },
  gwBucketIncr: { numberOfKeys: 1, lua: BUCKET_INCR },
  gwRingPush: { numberOfKeys: 2, lua: RING_PUSH },
  gwUnlock: { numberOfKeys: 1, lua: UNLOCK },
  gwRenew: { numberOfKeys: 1, lua: RENEW },
} as const;
