import type { Values } from './run';
import { usage, type CommandContext } from './context';
import { table } from './table';

/** `kb create NAME [--description D]` and `kb list`. */
export async function kbCommand({ client, io }: CommandContext, args: string[], values: Values): Promise<void> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    if (rest.length !== 1 || !rest[0].trim()) usage('kb create takes exactly one NAME (quote names with spaces)');
    const { knowledge_base: kb } = await client.knowledgeBases.create({
      name: rest[0],
      description: values.description as string | undefined,
    });
    if (io.json) return io.result(kb);
    return io.out(`created knowledge base ${kb.id}  ${kb.name}`);
  }
  if (sub === 'list') {
    if (rest.length) usage('kb list takes no arguments');
    const { knowledge_bases: kbs } = await client.knowledgeBases.list();
    if (io.json) return io.result({ knowledge_bases: kbs });
    if (!kbs.length) return io.out('no knowledge bases yet (docfleet kb create NAME)');
    return io.out(
      table(
        ['ID', 'NAME', 'CREATED', 'DESCRIPTION'],
        kbs.map((k) => [k.id, k.name, String(k.created_at).slice(0, 19).replace('T', ' '), k.description ?? '']),
      ),
    );
  }
  usage('kb needs a subcommand: create or list');
}
