from llmdoctor.cli import main

main()
