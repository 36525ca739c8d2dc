import { hash, verify } from '@node-rs/argon2';

// Passwords are the one low-entropy secret: argon2id, the OWASP recommendation.
export const hashPassword = (password: string) => hash(password);
export const verifyPassword = (hashed: string, password: string) => verify(hashed, password).catch(() => false);
