func.func @k() attributes {tuna.space = #tuna.space<params = [#tuna.param<"b", [1, 2]>], defaults = {b = 1}>} {
  %b = tuna.param "b" : vector<4xi32>
  return
}
