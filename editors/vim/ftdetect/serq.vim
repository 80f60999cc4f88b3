" serQ programs and libraries: *.sq
autocmd BufRead,BufNewFile *.sq setfiletype serq
