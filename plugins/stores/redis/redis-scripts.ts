/**
 * The Redis store's Lua scripts (ioredis `defineCommand`), one per multi-step method. An empty
 * `now` is Redis server time, so skewed instances agree; numbers leave as `%.17g` strings (Redis
 * truncates Lua numbers, Lua's tostring keeps 14 digits).
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

/** A window: a ZSET '<time>:<uid>:<amount>' scored by time, and a STRING of their sum kept in step (rebuilt when missing). */
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
 * Holds: a ZSET id → expiry, a HASH id → '<amount>|<owner>', and per-owner sums ('s:', 'n:') so
 * admission reads a few sums, not every hold. A hold lives while its owner's liveness key does
 * (a dead instance's holds go within its TTL); sums that disagree with the holds are rebuilt.
 */
const HOLDS = `
local function split(v)
  local sep = string.find(v, '|', 1, true)
  return tonumber(string.sub(v, 1, sep - 1)), string.sub(v, sep + 1)
end
-- takes hold id (hash value v) out of the hash and its owner's sums (the caller drops it from the zset)
local function unhold(ha, hs, id, v)
  redis.call('HDEL', ha, id)
  local amt, owner = split(v)
  if redis.call('HEXISTS', hs, 'n:' .. owner) == 1 then
    if redis.call('HINCRBY', hs, 'n:' .. owner, -1) <= 0 then
      redis.call('HDEL', hs, 'n:' .. owner, 's:' .. owner)
    else
      redis.call('HINCRBYFLOAT', hs, 's:' .. owner, fmt(-amt))
    end
  end
end
local function rebuild(ha, hs)
  redis.call('DEL', hs)
  local all = redis.call('HGETALL', ha)
  for i = 1, #all, 2 do
    local amt, owner = split(all[i + 1])
    redis.call('HINCRBYFLOAT', hs, 's:' .. owner, fmt(amt))
    redis.call('HINCRBY', hs, 'n:' .. owner, 1)
  end
end
-- the holds of an owner that is gone leave (one scan, once per owner that died)
local function bury(hx, ha, hs, owner)
  local all = redis.call('HGETALL', ha)
  for i = 1, #all, 2 do
    local _, o = split(all[i + 1])
    if o == owner then
      redis.call('HDEL', ha, all[i])
      redis.call('ZREM', hx, all[i])
    end
  end
  redis.call('HDEL', hs, 'n:' .. owner, 's:' .. owner)
end
local function alive(livePrefix, owner)
  return owner == '' or redis.call('EXISTS', livePrefix .. owner) == 1
end
local function live(hx, ha, hs, now, except, livePrefix)
  local expired = redis.call('ZRANGEBYSCORE', hx, '-inf', fmt(now))
  for _, id in ipairs(expired) do
    local v = redis.call('HGET', ha, id)
    if v then unhold(ha, hs, id, v) end
  end
  if #expired > 0 then redis.call('ZREMRANGEBYSCORE', hx, '-inf', fmt(now)) end
  local sums = redis.call('HGETALL', hs)
  local count = 0
  for i = 1, #sums, 2 do
    if string.sub(sums[i], 1, 2) == 'n:' then count = count + tonumber(sums[i + 1]) end
  end
  if count ~= redis.call('HLEN', ha) then
    rebuild(ha, hs)
    sums = redis.call('HGETALL', hs)
  end
  local sum = 0
  for i = 1, #sums, 2 do
    if string.sub(sums[i], 1, 2) == 's:' then
      local owner = string.sub(sums[i], 3)
      if alive(livePrefix, owner) then sum = sum + tonumber(sums[i + 1]) else bury(hx, ha, hs, owner) end
    end
  end
  if except then
    local v = redis.call('HGET', ha, except)
    if v then
      local amt, owner = split(v)
      if alive(livePrefix, owner) then sum = sum - amt end
    end
  end
  return sum
end
-- the three keys expire with their last hold
local function keepAlive(hx, ha, hs)
  local last = redis.call('ZRANGE', hx, -1, -1, 'WITHSCORES')
  if #last == 0 then
    redis.call('DEL', hx, ha, hs)
  else
    local at = fmt(math.ceil(tonumber(last[2])))
    redis.call('PEXPIREAT', hx, at)
    redis.call('PEXPIREAT', ha, at)
    redis.call('PEXPIREAT', hs, at)
  end
end
`;

/**
 * hold. KEYS: counter hash, holds zset, holds hash, holds sums. ARGV: id, amount, field, limit,
 * ttlMs, owner, livePrefix, livenessTtlMs, fitBound ('' = no fit test). Returns {admitted 0|1, value, held}.
 */
export const HOLD = `${LIB}${HOLDS}
local id, amt, field, limit, ttl = ARGV[1], tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
local owner, livePrefix = ARGV[6], ARGV[7]
if owner ~= '' then redis.call('SET', livePrefix .. owner, '1', 'PX', ARGV[8]) end
local now = clock('')
local held = live(KEYS[2], KEYS[3], KEYS[4], now, id, livePrefix)
local value = tonumber(redis.call('HGET', KEYS[1], field) or '0')
if value + held < limit and (ARGV[9] == '' or value + held + amt <= tonumber(ARGV[9])) then
  local old = redis.call('HGET', KEYS[3], id)
  if old then unhold(KEYS[3], KEYS[4], id, old) end
  redis.call('ZADD', KEYS[2], fmt(now + ttl), id)
  redis.call('HSET', KEYS[3], id, ARGV[2] .. '|' .. owner)
  redis.call('HINCRBYFLOAT', KEYS[4], 's:' .. owner, ARGV[2])
  redis.call('HINCRBY', KEYS[4], 'n:' .. owner, 1)
  keepAlive(KEYS[2], KEYS[3], KEYS[4])
  return {1, fmt(value), fmt(held)}
end
keepAlive(KEYS[2], KEYS[3], KEYS[4])
return {0, fmt(value), fmt(held)}
`;

/** held. KEYS: holds zset, holds hash, holds sums. ARGV: livePrefix. Returns the live sum (string). */
export const HELD = `${LIB}${HOLDS}
local sum = live(KEYS[1], KEYS[2], KEYS[3], clock(''), nil, ARGV[1])
keepAlive(KEYS[1], KEYS[2], KEYS[3])
return fmt(sum)
`;

/** release. KEYS: holds zset, holds hash, holds sums. ARGV: id. */
export const RELEASE = `${LIB}${HOLDS}
redis.call('ZREM', KEYS[1], ARGV[1])
local v = redis.call('HGET', KEYS[2], ARGV[1])
if v then unhold(KEYS[2], KEYS[3], ARGV[1], v) end
return 1
`;

/** incr. KEYS: counter hash. ARGV: field, delta, field, delta… Returns HGETALL after. */
export const INCR = `
for i = 1, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
return redis.call('HGETALL', KEYS[1])
`;

/**
 * settle. KEYS: counter hash, holds zset, holds hash, holds sums. ARGV: id, field, delta, field, delta…
 * Adds the deltas and drops the hold in one step. Returns HGETALL after.
 */
export const SETTLE = `${LIB}${HOLDS}
for i = 2, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
local v = redis.call('HGET', KEYS[3], ARGV[1])
if v then unhold(KEYS[3], KEYS[4], ARGV[1], v) end
return redis.call('HGETALL', KEYS[1])
`;

/** bucketIncr. KEYS: the bucket's hash. ARGV: expireAtMs, series, field, delta… Fields '<field>\0<series>' (no NUL in field names). */
export const BUCKET_INCR = `
for i = 3, #ARGV, 2 do redis.call('HINCRBYFLOAT', KEYS[1], ARGV[i] .. '\\0' .. ARGV[2], ARGV[i + 1]) end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
return 1
`;

/** ringPush. KEYS: the ring's zset, its sequence counter. ARGV: value, maxLen. Members '<seq>:<value>' scored by seq; returns the seq. */
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
  gwHold: { numberOfKeys: 4, lua: HOLD },
  gwHeld: { numberOfKeys: 3, lua: HELD },
  gwRelease: { numberOfKeys: 3, lua: RELEASE },
  gwIncr: { numberOfKeys: 1, lua: INCR },
  gwSettle: { numberOfKeys: 4, lua: SETTLE },
  gwBucketIncr: { numberOfKeys: 1, lua: BUCKET_INCR },
  gwRingPush: { numberOfKeys: 2, lua: RING_PUSH },
  gwUnlock: { numberOfKeys: 1, lua: UNLOCK },
  gwRenew: { numberOfKeys: 1, lua: RENEW },
} as const;
