import type { Capacity, ModelCapacity } from '../../../../shared/domain';
import { ctxPerSlot, errorShareText, groupByProxy, heapText, kvText, loadLevel, slotFraction, tokensText } from './capacity';
import { formatAge, formatDateTime } from '../../ui/format';
import { useNow } from '../../ui/react-hooks';

const NUM = new Intl.NumberFormat('en-US');

function n(v: number | null): string {
  return v === null ? '—' : NUM.format(v);
}

function ctx(v: number | null): string {
  if (v === null) return '—';
  return v >= 1024 && v % 1024 === 0 ? `${v / 1024}k` : NUM.format(v);
}

function UpBadge({ c, now }: { c: Capacity; now: number }) {
  const age = formatAge(c.since, now);
  return (
    <span className={`cap-up ${c.up ? 'cap-up-yes' : 'cap-up-no'}`} title={c.since ? `since ${formatDateTime(c.since)}` : undefined}>
      <span className="dot" aria-hidden="true" />
      {c.up ? 'up' : 'down'}
      {age ? <span className="cap-since"> {age}</span> : null}
    </span>
  );
}

function SlotMeter({ c }: { c: Capacity }) {
  const f = slotFraction(c);
  const level = c.up ? loadLevel(c) : 'unknown';
  return (
    <div className="cap-meter-row">
      <div
        className={`cap-meter cap-level-${level}`}
        role="meter"
        aria-label="Slots busy"
        aria-valuemin={0}
        aria-valuemax={c.slotsTotal ?? 0}
        aria-valuenow={c.slotsBusy ?? 0}
      >
        <div className="cap-meter-fill" style={{ width: `${Math.round((f ?? 0) * 100)}%` }} />
      </div>
      <span className="cap-meter-text num">
        <strong>{n(c.slotsBusy)}</strong> / {n(c.slotsTotal)} slots busy
      </span>
    </div>
  );
}

/** The KV-cache in use, as a meter: vLLM's capacity is its KV-cache more than its batch. */
function KvMeter({ c }: { c: Capacity }) {
  const kv = kvText(c);
  if (!kv) return null;
  return (
    <div className="cap-meter-row" data-testid={`capacity-kv-${c.proxy}-${c.host}`}>
      <div className={`cap-meter cap-level-${kv.level}`} role="meter" aria-label="KV-cache in use" aria-valuemin={0} aria-valuemax={100} aria-valuenow={kv.pct}>
        <div className="cap-meter-fill" style={{ width: `${Math.round(kv.pct)}%` }} />
      </div>
      <span className="cap-meter-text num" title="KV-cache blocks in use, as the server reports it">
        <strong>{kv.text}</strong> KV-cache
      </span>
    </div>
  );
}

function Models({ models }: { models: readonly ModelCapacity[] }) {
  if (models.length === 0) return <p className="muted small cap-none">No models loaded.</p>;
  return (
    <ul className="cap-models" aria-label="Loaded models">
      {models.map((m) => (
        <li key={m.id} className="cap-model">
          <span className="mono cap-model-id" title={m.id}>
            {m.id}
          </span>
          <span className="cap-model-facts num">
            {/* vLLM and Prometheus know neither: three dashes say nothing. */}
            {m.nCtx !== null || m.slots !== null ? (
              <>
                <span title={m.nCtx !== null ? `n_ctx ${NUM.format(m.nCtx)}` : 'n_ctx not exposed'}>ctx {ctx(m.nCtx)}</span>
                <span title="context per slot">{ctx(ctxPerSlot(m.nCtx, m.slots))}/slot</span>
                <span>{n(m.slots)} slots</span>
              </>
            ) : null}
            <span>{n(m.inflight)} in-flight</span>
            <span className={(m.queued ?? 0) > 0 ? 'cap-queued' : undefined}>{n(m.queued)} queued</span>
          </span>
        </li>
      ))}
    </ul>
  );
}

function HostCard({ c, now }: { c: Capacity; now: number }) {
  const queued = (c.queued ?? 0) > 0;
  const heap = heapText(c);
  const errors = errorShareText(c);
  return (
    <li
      className={`cap-host card${c.up ? '' : ' cap-host-down'}${queued ? ' cap-host-queued' : ''}`}
      data-testid={`capacity-host-${c.proxy}-${c.host}`}
      data-up={String(c.up)}
    >
      <div className="cap-host-head">
        <h3 className="cap-host-name">{c.host}</h3>
        {c.kind === 'gateway' || c.kind === 'vllm' ? <span className="tag tag-demo">{c.kind === 'vllm' ? 'vLLM' : 'gateway'}</span> : null}
        <UpBadge c={c} now={now} />
      </div>
      {c.error ? (
        <p className="cap-error" role="alert">
          {c.error}
        </p>
      ) : null}
      {/* vLLM has no fixed slots: its running requests are in-flight, its KV-cache the meter. */}
      {c.up && (c.slotsTotal !== null || (c.kind !== 'gateway' && c.kind !== 'vllm')) ? <SlotMeter c={c} /> : null}
      <KvMeter c={c} />
      <dl className="cap-facts num">
        <div>
          <dt>{c.kind === 'vllm' ? 'running' : 'in-flight'}</dt>
          <dd>{n(c.inflight)}</dd>
        </div>
        <div className={queued ? 'cap-queued' : undefined}>
          <dt>{c.kind === 'vllm' ? 'waiting' : 'queued'}</dt>
          <dd>{n(c.queued)}</dd>
        </div>
        {c.kind !== 'vllm' ? (
          <div>
            <dt>ctx / slot</dt>
            <dd title={c.nCtx !== null ? `n_ctx ${NUM.format(c.nCtx)}` : undefined}>{ctx(ctxPerSlot(c.nCtx, c.slotsTotal))}</dd>
          </div>
        ) : null}
        {tokensText(c) !== null ? (
          <div data-testid={`capacity-tokens-${c.proxy}-${c.host}`}>
            <dt>tokens / s</dt>
            <dd title="generated tokens a second, from the server's counter">{tokensText(c)}</dd>
          </div>
        ) : null}
        {c.kind === 'gateway' ? (
          <>
            <div>
              <dt>shed at</dt>
              <dd>{n(c.shedThreshold)}</dd>
            </div>
            <div>
              <dt>high water</dt>
              <dd>{n(c.highWater)}</dd>
            </div>
            <div className={(c.totalShed ?? 0) > 0 ? 'cap-queued' : undefined}>
              <dt>shed total</dt>
              <dd>{n(c.totalShed)}</dd>
            </div>
            {heap ? (
              <div className={heap.high ? 'cap-queued' : undefined} data-testid={`capacity-heap-${c.proxy}`}>
                <dt>heap</dt>
                <dd title="heap in use, of the gateway's heap size limit">{heap.text}</dd>
              </div>
            ) : null}
          </>
        ) : null}
        {errors ? (
          <div className={errors.burst ? 'cap-queued' : undefined} data-testid={`capacity-errors-${c.proxy}-${c.host}`}>
            <dt>server errors</dt>
            <dd title="5xx and shed responses, of the requests in the window">{errors.text}</dd>
          </div>
        ) : null}
      </dl>
      {c.up && (c.kind !== 'gateway' || c.models.length > 0) ? <Models models={c.models} /> : null}
      {c.missing.length > 0 ? <p className="cap-missing small">server did not expose: {c.missing.join(', ')}</p> : null}
    </li>
  );
}

/** Every inference host as last polled, grouped by proxy: up or down, slots, queue, context and models. */
export function CapacityHosts({ capacity }: { capacity: readonly Capacity[] }) {
  const now = useNow(30_000);
  return (
    <div className="cap-groups">
      {groupByProxy(capacity).map((g) => {
        const up = g.hosts.filter((h) => h.up).length;
        return (
          <section key={g.proxy} className="cap-group" aria-label={`Proxy ${g.proxy}`} data-testid={`capacity-proxy-${g.proxy}`}>
            <h2 className="cap-group-head">
              {g.proxy} <span className="muted cap-group-meta">{g.kind} · {up}/{g.hosts.length} up</span>
            </h2>
            <ul className="cap-hosts">
              {g.hosts.map((c) => (
                <HostCard key={c.host} c={c} now={now} />
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}
