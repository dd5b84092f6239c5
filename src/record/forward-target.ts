/**
 * What a forward recording (`record --forward`) names as its target: it has one per exchange, the
 * origin its URL starts with, and `show` groups its exchanges by them.
 */
export const FORWARD_TARGET = 'forward proxy';
