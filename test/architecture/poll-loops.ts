// Finds a test's own poll loop: a `for`/`while`/`do` that sleeps between tries, gives up on a budget
// (a Date.now()/performance.now() deadline or a count of tries) and stops early when the state it
// re-reads matches. That is what libs/testing's waitUntil does once, with a timeout error that names
// what was awaited; a loop of a test's own fails at best with its own words, at worst by falling
// through silently into the next assertion.
//
// A loop that only paces work (`for (i < 5) { send(); await sleep(100) }`) or runs for a while
// (`while (Date.now() < end) { … }`) has no exit of its own besides the budget and is not a poll;
// neither is a sampler (`while (!done) { sample(); await sleep(10) }`), which has no budget.
import ts from 'typescript';

const SLEEP_NAME = /^(?:sleep|delay|pause|wait|setTimeout)$/;
const CLOCK = /^(?:Date\.now|performance\.now)$/;

const isLoop = (n: ts.Node): n is ts.IterationStatement =>
  ts.isForStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);

/** Visits `node`'s descendants, not entering functions, nor loops when `intoLoops` is false. */
function some(node: ts.Node, test: (n: ts.Node) => boolean, intoLoops = true): boolean {
  let hit = false;
  const visit = (n: ts.Node): void => {
    if (hit) return;
    if (test(n)) {
      hit = true;
      return;
    }
    if (ts.isFunctionLike(n) || (!intoLoops && (isLoop(n) || ts.isForOfStatement(n) || ts.isForInStatement(n)))) return;
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return hit;
}

/** A promise that only resolves after a while: `new Promise((r) => setTimeout(r, ms))`, `sleep(ms)`. */
function isSleep(e: ts.Expression, sleepers: Set<string>): boolean {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isNewExpression(e))
    return ts.isIdentifier(e.expression) && e.expression.text === 'Promise' && /\bsetTimeout\b/.test(e.getText());
  if (!ts.isCallExpression(e)) return false;
  const callee = e.expression;
  const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
  return SLEEP_NAME.test(name) || sleepers.has(name);
}

/** Names the file gives to a sleep of its own: `const nap = (ms) => new Promise((r) => setTimeout(r, ms))`. */
function sleepersOf(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (
      ts.isVariableDeclaration(n) &&
      ts.isIdentifier(n.name) &&
      n.initializer &&
      ts.isArrowFunction(n.initializer) &&
      /\bnew Promise\b[\s\S]*\bsetTimeout\b/.test(n.initializer.getText(sf))
    )
      out.add(n.name.text);
    if (ts.isFunctionDeclaration(n) && n.name && /\bnew Promise\b[\s\S]*\bsetTimeout\b/.test(n.getText(sf)))
      out.add(n.name.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

const isClockRead = (n: ts.Node) =>
  ts.isCallExpression(n) && n.arguments.length === 0 && CLOCK.test(n.expression.getText());

const COMPARE = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);

/** `Date.now() < deadline`, `Date.now() - t0 > 5000`, `i < 100` for a counter `i` of the loop. */
function isBudget(n: ts.Node, counters: Set<string>): boolean {
  while (ts.isParenthesizedExpression(n)) n = n.expression;
  if (!ts.isBinaryExpression(n) || !COMPARE.has(n.operatorToken.kind)) return false;
  const side = (s: ts.Expression) =>
    isClockRead(s) ||
    some(s, isClockRead) ||
    (ts.isIdentifier(s) &&
      counters.has(s.text) &&
      !some(otherSide(n, s), ts.isCallExpression) &&
      !ts.isCallExpression(stripParens(otherSide(n, s))));
  return side(n.left) || side(n.right);
}

const stripParens = (e: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(e) ? stripParens(e.expression) : e;
const otherSide = (b: ts.BinaryExpression, s: ts.Expression) => (s === b.left ? b.right : b.left);

/** The operands of an `&&`/`||` chain. */
function operands(e: ts.Expression): ts.Expression[] {
  e = stripParens(e);
  if (
    ts.isBinaryExpression(e) &&
    (e.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken ||
      e.operatorToken.kind === ts.SyntaxKind.BarBarToken)
  )
    return [...operands(e.left), ...operands(e.right)];
  return [e];
}

/** Whether `loop` is an inline poll loop (see the top of the file). */
function isPollLoop(loop: ts.IterationStatement, sleepers: Set<string>): boolean {
  const sleeps = some(
    loop,
    (n) => ts.isAwaitExpression(n) && isSleep(n.expression, sleepers),
    false, // an inner loop's sleep is the inner loop's
  );
  if (!sleeps) return false;
  const counters = new Set<string>();
  if (ts.isForStatement(loop) && loop.initializer && ts.isVariableDeclarationList(loop.initializer))
    for (const d of loop.initializer.declarations) if (ts.isIdentifier(d.name)) counters.add(d.name.text);
  const budget = isBudget(loop, counters) || some(loop, (n) => isBudget(n, counters));
  if (!budget) return false;
  // An exit of its own: a condition beyond the budget, or a break/return out of the body.
  const cond = ts.isForStatement(loop) ? loop.condition : (loop as ts.WhileStatement | ts.DoStatement).expression;
  if (cond && operands(cond).some((o) => !isBudget(o, counters))) return true;
  return some(loop.statement, (n) => ts.isReturnStatement(n) || (ts.isBreakStatement(n) && !isInnerBreak(n, loop)));
}

/** A `break` that leaves an inner loop or switch rather than `loop`. */
function isInnerBreak(b: ts.BreakStatement, loop: ts.Node): boolean {
  if (b.label) return false;
  for (let p = b.parent; p && p !== loop; p = p.parent)
    if (isLoop(p) || ts.isForOfStatement(p) || ts.isForInStatement(p) || ts.isSwitchStatement(p)) return true;
  return false;
}

/** `line` (1-based) of every inline poll loop in `text`. */
export function pollLoopLines(file: string, text: string): number[] {
  if (!/\b(?:setTimeout|sleep|delay|pause|wait)\b/.test(text)) return []; // nothing to sleep with: skip the parse
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const sleepers = sleepersOf(sf);
  const lines: number[] = [];
  const visit = (n: ts.Node): void => {
    if (isLoop(n) && isPollLoop(n, sleepers)) lines.push(sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return lines;
}
