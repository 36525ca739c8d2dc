// The only code that writes credit rows (credit_accounts, credit_reservations, ledger_entries).
export * from './accounts';
export * from './ledger';
export * from './reservations';
export * from './reads';
export * from './duties';
export { creditTransaction, creditQueueActive, CREDIT_QUEUE_WAIT_MS } from './credit-transaction';
export { observeCredits, type CreditObserver } from './observers';
