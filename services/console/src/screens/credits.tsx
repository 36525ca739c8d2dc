import { useState } from 'react';
import type { LedgerDay, LedgerEntry } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { formatTime, useAsync } from '../lib/use-async';

export default function Credits() {
  const { client } = useConsole();
  const credits = useAsync((signal) => client.billing.credits({ signal }), [client]);
  const days = useAsync(
    async (signal) => (await client.billing.ledger({ groupBy: 'day', limit: 60, signal })).entries as LedgerDay[],
    [client],
  );
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const ledger = useAsync((signal) => client.billing.ledger({ limit: 25, cursor, signal }), [client, cursor]);
  const c = credits.data?.credits;
  return (
    <section aria-labelledby="credits-title">
      <h1 id="credits-title">Credits</h1>
      <ErrorBanner error={credits.error} />
      {c && (
        <dl className="stats">
          <div>
            <dt>Balance</dt>
            <dd data-testid="balance">{c.balance_credits}</dd>
          </div>
          <div>
            <dt>Reserved by running parses</dt>
            <dd>{c.reserved_credits}</dd>
          </div>
          <div>
            <dt>Available</dt>
            <dd>{c.balance_credits - c.reserved_credits}</dd>
          </div>
          <div>
            <dt>Used this month</dt>
            <dd>
              {c.monthly_used_credits}
              {c.monthly_quota_credits !== null ? ` of ${c.monthly_quota_credits}` : ''}
            </dd>
          </div>
          <div>
            <dt>Used in total</dt>
            <dd>{c.total_used_credits}</dd>
          </div>
        </dl>
      )}
      <h2>Daily usage</h2>
      <ErrorBanner error={days.error} />
      {days.data && <UsageChart days={days.data} />}
      <h2>Ledger</h2>
      <ErrorBanner error={ledger.error} />
      {ledger.data && (
        <>
          <div className="table-wrap">
            <table aria-label="Ledger entries">
              <thead>
                <tr>
                  <th>When</th>
                  <th>Kind</th>
                  <th>Credits</th>
                  <th>Balance after</th>
                  <th>Reason</th>
                </tr>
              </thead>
              <tbody>
                {(ledger.data.entries as LedgerEntry[]).map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.created_at)}</td>
                    <td>{e.kind}</td>
                    <td className="num">{e.amount_credits}</td>
                    <td className="num">{e.balance_after}</td>
                    <td>{e.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="actions">
            <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors((cs) => cs.slice(0, -1))}>
              Newer
            </button>
            <button
              type="button"
              disabled={!ledger.data.next_cursor}
              onClick={() => setCursors((cs) => [...cs, ledger.data!.next_cursor ?? undefined])}
            >
              Older
            </button>
          </div>
        </>
      )}
    </section>
  );
}

/** Credits used per day (debits less refunds), last 30 days, as an SVG bar chart. */
export function UsageChart({ days }: { days: LedgerDay[] }) {
  const byDay = new Map(days.map((d) => [d.day.slice(0, 10), d]));
  const today = new Date();
  const series = Array.from({ length: 30 }, (_, k) => {
    const d = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - 29 + k));
    const key = d.toISOString().slice(0, 10);
    return { day: key, used: Math.max(0, byDay.get(key)?.net_used_credits ?? 0) };
  });
  const max = Math.max(1, ...series.map((s) => s.used));
  const W = 600;
  const H = 160;
  const bw = W / series.length;
  return (
    <figure className="chart">
      <svg
        viewBox={`-4 0 ${W + 24} ${H + 20}`}
        role="img"
        aria-label="Credits used per day, last 30 days"
        data-testid="usage-chart"
      >
        <line x1={0} y1={H} x2={W} y2={H} className="axis" />
        {series.map((s, k) => {
          const h = (s.used / max) * (H - 10);
          return (
            <g key={s.day}>
              <rect
                className="bar"
                data-day={s.day}
                data-used={s.used}
                x={k * bw + 2}
                y={H - h}
                width={bw - 4}
                height={h}
              >
                <title>{`${s.day}: ${s.used} credits`}</title>
              </rect>
              {k % 5 === 4 && (
                <text x={k * bw + bw / 2} y={H + 14} textAnchor="middle" className="tick">
                  {s.day.slice(5)}
                </text>
              )}
            </g>
          );
        })}
        <text x={4} y={12} className="tick">
          {max}
        </text>
      </svg>
      <figcaption className="muted small">Credits used per day (UTC), debits less refunds, last 30 days.</figcaption>
    </figure>
  );
}
