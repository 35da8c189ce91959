; The one query run over each Python file (tree-sitter-python 0.25).
;
; Every fact extraction reads comes from these captures, in one pass in C; the
; Python side (sgkr.ingest.extract) gives each capture to the innermost function
; around it. A capture's name says what it is: "def" a function, "call.*" a call
; site, "bind.*" what gives a name a value, "use.*" a name used as a value.
;
; Linear however deeply code nests: a pattern names only the first children of a
; node (or none). One that waited for a later child (a call's arguments, an
; attribute's name, a subscript's key) would stay open while the cursor walks the
; children before it, and in a chain such as a.b().b()... the states of every
; level would be open at once: quadratic. Containers, argument lists and
; subscripts are captured whole and their children read in Python.

; Definitions and their names (paired in source order).
(function_definition name: (identifier) @def.name) @def
(class_definition name: (identifier) @class.name) @class

; Calls: f(), x.f(), @d, raise E, x[k](), x[1:][k](), g()()
(call function: (identifier) @call.plain)
(call function: (attribute) @call.attr)
(decorator [(identifier) (attribute)] @call.deco)
(raise_statement (identifier) @call.raise)
(call function: (subscript) @call.sub)
(call function: (call function: [(identifier) (attribute)] @call.result))

; What a call is passed: its argument list, read item by item (a class's bases are
; an argument list too: told apart in Python).
(argument_list) @use.args

; Names used as values: stored in a dict or a container, returned, yielded, assigned.
(pair value: [(identifier) (attribute)] @use)
(list) @use.items
(tuple) @use.items
(set) @use.items
(expression_list) @use.items
(return_statement [(identifier) (attribute)] @use)
(yield [(identifier) (attribute)] @use)
(assignment right: [(identifier) (attribute)] @use)

; What names are given: assignments, returns and yields, for loops, as names, defaults.
(assignment left: [(identifier) (attribute)]
            right: [(identifier) (attribute) (call) (list) (tuple) (set) (dictionary)]) @bind
(assignment left: [(identifier) (attribute)] right: [(assignment) (subscript)]) @bind
(assignment left: [(pattern_list) (tuple_pattern) (subscript)]) @bind
(return_statement [(identifier) (attribute) (call) (expression_list) (list) (tuple)]
    @bind.return)
(yield [(identifier) (attribute) (call) (list) (tuple)] @bind.yield)
(for_statement left: [(identifier) (pattern_list) (tuple_pattern)]
               right: [(identifier) (attribute) (call)]) @bind.for
(as_pattern alias: (as_pattern_target (identifier))) @bind.as
(default_parameter value: [(identifier) (attribute)]) @bind.default
(typed_default_parameter value: [(identifier) (attribute)]) @bind.default

; Names changed in ways no binding records (read in Python): given an integer literal
; or an expression giving no value of the sources, changed in place, deleted, or
; rebound from an inner scope.
(assignment left: (identifier) right: (_)) @change
(named_expression name: (identifier)) @change
(for_statement left: (identifier) @change.name)
(augmented_assignment left: (_) @change.name)
(delete_statement) @change.names
(global_statement) @change.names
(nonlocal_statement) @change.names

; Imports.
(import_statement) @import
(import_from_statement) @import

; Subscripts: x["key"] reads a key (or writes it, when assigned to).
(subscript) @key

; Attributes read of a name (df.amount), for the function's parameters (self's are state).
(attribute object: (identifier) @read.object (#not-eq? @read.object "self")
           attribute: (identifier)) @read
