// Placeholder until this target lands; see Package.swift for its place in the stack.
