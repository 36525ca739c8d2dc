import type { Values } from './run';
import { usage, type CommandContext } from './context';

/** `credits`: balance, holds, use and quota. */
export async function creditsCommand({ client, io }: CommandContext, args: string[], _values: Values): Promise<void> {
  if (args.length) usage('credits takes no arguments');
  const r = await client.billing.credits();
  const c = r.credits;
  const available = c.balance_credits - c.reserved_credits;
  if (io.json) return io.result({ ...r, available_credits: available });
  const quota =
    c.monthly_quota_credits === null
      ? 'no monthly quota'
      : `${c.monthly_used_credits} of ${c.monthly_quota_credits} used this month`;
  return io.out(
    [
      `balance     ${c.balance_credits} credits`,
      `reserved    ${c.reserved_credits} (held by running parses)`,
      `available   ${available}`,
      `this month  ${c.monthly_used_credits} used; ${quota}`,
      `lifetime    ${c.total_used_credits} used`,
    ].join('\n'),
  );
}
