/**
 * Stages in the style of hono's `compose` (and koa's): each takes the request's context and `next`,
 * does its part, and calls `next()` to hand over to the stage below, or throws (an `ApiError`) or
 * answers to stop there. Code after `await next()` runs once the stages below are done (a lock's
 * release, an error's rendering).
 */
export type Next = () => void | Promise<void>;

/** A stage may be synchronous: one that only checks and hands over costs no promise per request. */
export type Stage<C> = (ctx: C, next: Next) => void | Promise<void>;

/** Runs `stages` in order over one context; the last stage's `next` does nothing. */
export function compose<C>(stages: readonly Stage<C>[]): (ctx: C) => void | Promise<void> {
  return (ctx) => {
    const dispatch = (i: number): void | Promise<void> => {
      const stage = stages[i];
      if (stage === undefined) return;
      return stage(ctx, () => dispatch(i + 1));
    };
    return dispatch(0);
  };
}
