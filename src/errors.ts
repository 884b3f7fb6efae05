// The one registry of error codes. Each carries its HTTP status; plugins/problems turns any of
// them into an RFC 9457 problem+json body. The core throws these without knowing about HTTP.
import createError, { type FastifyErrorConstructor } from '@fastify/error'

/** Per-argument messages, as problem+json's `errors` member carries them. */
export type ArgumentErrors = Record<string, string[]>

export const InvalidArgumentsError = createError<[string]>('AG_INVALID_ARGUMENTS', '%s', 400)
export const UnknownAudienceError = createError<[string]>('AG_UNKNOWN_AUDIENCE', '%s', 400)
export const UnauthorizedError = createError<[string]>('AG_UNAUTHORIZED', '%s', 401)
export const ForbiddenError = createError<[string]>('AG_FORBIDDEN', '%s', 403)
export const NotFoundError = createError<[string]>('AG_NOT_FOUND', '%s', 404)
export const NotAcceptableError = createError<[string]>('AG_NOT_ACCEPTABLE', '%s', 406)
export const RateLimitedError = createError<[string]>('AG_RATE_LIMITED', '%s', 429)
export const StoreUnavailableError = createError<[string]>('AG_STORE_UNAVAILABLE', '%s', 503)
export const OverloadedError = createError<[string]>('AG_OVERLOADED', '%s', 503)

/** Problem titles by code: what kind of problem, as opposed to `detail`'s what happened. */
export const PROBLEM_TITLES: Readonly<Record<string, string>> = {
  AG_INVALID_ARGUMENTS: 'Invalid arguments',
  AG_UNKNOWN_AUDIENCE: 'Unknown audience',
  AG_UNAUTHORIZED: 'Unauthorized',
  AG_FORBIDDEN: 'Forbidden',
  AG_NOT_FOUND: 'Not found',
  AG_NOT_ACCEPTABLE: 'Not acceptable',
  AG_RATE_LIMITED: 'Rate limited',
  AG_STORE_UNAVAILABLE: 'Store unavailable',
  AG_OVERLOADED: 'Overloaded'
}

/** A 400 naming each offending argument with what is wrong with it. */
export function invalidArguments (errors: ArgumentErrors): Error & { errors: ArgumentErrors } {
  const names = Object.keys(errors)
  const error = new InvalidArgumentsError(
    `The request has ${names.length === 1 ? 'an invalid argument' : 'invalid arguments'}: ${names.join(', ')}. See "errors".`
  )
  return Object.assign(error, { errors })
}

export type { FastifyErrorConstructor }
