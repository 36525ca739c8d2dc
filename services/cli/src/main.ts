// `pnpm docfleet <command>`: operator commands under `admin` (database access), and the user
// commands (kb, upload, parse, search, extract, split, credits) that go through the HTTP API with
// SERVICE_API_KEY. Each group is loaded only when used.
import { USER_USAGE } from './user/usage';

async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  if (group === 'admin') return (await import('./admin-main')).adminMain(rest);
  if (!group || group === 'help' || group === '--help' || group === '-h') {
    process.stderr.write(`${USER_USAGE}\n  docfleet admin <command> …   operator commands (see docs/operations.md)\n`);
    return group ? 0 : 2;
  }
  return (await import('./user/run')).runUserCommand(argv);
}

main(process.argv.slice(2)).then((code) => process.exit(code));
